"""Copying a home's DuckDB file into the Postgres store, for a home that moves to the cluster profile."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd

from lyra_resources.schema import TABLES
from lyra_resources.store.locks import STORE_RETRY
from lyra_resources.store.lyra_store import LyraStore, StoreError


def read_duckdb_tables(database: Path, timeout_s: float = 120.0) -> dict[str, pd.DataFrame]:
    """Every table of the contract that the DuckDB file holds, with the columns it has (an older
    Lyra's file may lack newer ones), read in one read-only session."""
    if not database.is_file():
        raise StoreError(f"no DuckDB file at {database}")
    conn = STORE_RETRY.run(
        lambda: duckdb.connect(str(database), read_only=True), timeout_s=timeout_s, what=database
    )
    try:
        present: dict[str, list[str]] = {}
        for table, column in conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns ORDER BY table_name, ordinal_position"
        ).fetchall():
            present.setdefault(table, []).append(column)
        frames = {}
        for name, spec in TABLES.items():
            columns = [c for c in spec.column_names if c in present.get(name, [])]
            if columns:
                frames[name] = conn.execute(f"SELECT {', '.join(columns)} FROM {name}").df()
        return frames
    finally:
        conn.close()


def copy_duckdb_into(target: LyraStore, database: Path) -> dict[str, int]:
    """Copy every table of the DuckDB file ``database`` into ``target``'s Postgres store in one
    transaction; returns each table's row count. Refused, with nothing written, when the target is
    not a Postgres store or already holds rows (copy into a fresh database)."""
    if not target.url:
        raise StoreError(
            f"the store is the DuckDB file {target.layout.database}: copying needs the store in "
            "Postgres (cluster.store: postgres, or the cluster profile, and its URL)"
        )
    frames = read_duckdb_tables(database, target.busy_timeout_s)

    def copy(conn) -> dict[str, int]:
        occupied = [name for name in TABLES if conn.execute(f"SELECT 1 FROM {name} LIMIT 1").fetchone()]
        if occupied:
            raise StoreError(
                f"{target.where} already holds rows ({', '.join(occupied[:5])}"
                f"{' …' if len(occupied) > 5 else ''}): copy into a fresh database; nothing was copied"
            )
        for name, frame in frames.items():
            conn.insert_rows(name, frame)
        return {name: len(frame) for name, frame in frames.items() if len(frame)}

    return target.transaction(copy)
