"""The store: a home's tables in DuckDB (or Postgres on the cluster profile) and their Parquet
exports, the locks that let many processes share the database file, the generations a run stages
and publishes at once, task rows, the SQL helpers both backends run (``sql``), and the digest of what
a run read. Every asset reads and writes through ``lyra_store.LyraStore``."""
