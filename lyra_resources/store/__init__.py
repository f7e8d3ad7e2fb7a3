"""The store: a home's tables in DuckDB (or Postgres on the cluster profile) and their Parquet
exports, the locks that let many processes share the database file, the generations a run stages
and publishes at once, task rows, the SQL helpers both backends run (``sql``), and the digest of what
a run read. Every asset reads and writes through ``lyra_store.LyraStore``. Every SQL statement Lyra
runs is written in this package: the reviewed graph's readers (``reviewed_graph``: feedback applied,
as the tools, the exports and the report read it), the rows feedback checks and writes
(``feedback_rows``), the relevance signals (``relevance_signals``), the MCP writes' request ids
(``request_ids``), a verify task's results (``verify_rows``), the NLI model versions
(``nli_version_rows``) and the caches of computed values (``content_cache_rows``)."""
