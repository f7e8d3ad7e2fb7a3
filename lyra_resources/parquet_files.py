"""A table's rows as one Parquet file, in the contract's types."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd

from lyra_resources.schema import TableSpec


def write_parquet(spec: TableSpec, frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` (the table's columns, ``task_id`` included) to ``path`` without ``task_id``,
    which the hive-partitioned folder names."""
    # Cast through an in-memory table of the contract's types so every file of a table has
    # one schema, whatever pandas inferred (an empty frame included).
    mem = duckdb.connect(":memory:")
    try:
        mem.execute(spec.ddl().replace("PRIMARY KEY", ""))
        mem.register("incoming_rows", frame)
        mem.execute(f"INSERT INTO {spec.name} BY NAME SELECT * FROM incoming_rows")
        mem.execute(
            f"COPY (SELECT * EXCLUDE (task_id) FROM {spec.name}) TO '{_sql_path(path)}' "
            "(FORMAT parquet, COMPRESSION zstd)"
        )
    finally:
        mem.close()


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")
