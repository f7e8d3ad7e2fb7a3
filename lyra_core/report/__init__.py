"""A task's report for people, built from what the effective graph holds: the content
(:mod:`.models`), its Markdown (:mod:`.markdown`), its standalone HTML page (:mod:`.html`), the
evidence graph's picture (:mod:`.svg`) and the numbered references (:mod:`.refs`). Pure: reading
the graph is :mod:`lyra_resources.store.reviewed_graph.report`'s work."""
