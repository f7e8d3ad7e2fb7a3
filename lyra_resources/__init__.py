"""Everything in Lyra that touches the outside world, one sub-package per concern: the store
(``store``, with the reviewed graph's readers in ``store.reviewed_graph``), local corpora
(``corpus``), literature sources (``sources``), the browser and the web (``web``), models for
inference (``models``) and the table registry (``schema``); settings, the home's layout, the environment variables and
the Dagster
resources sit at the top."""
