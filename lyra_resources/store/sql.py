"""The SQL both store backends run, as helpers over one open connection: a DuckDB connection or a
session of the Postgres store (:mod:`lyra_resources.store.postgres`) answer the same calls."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import duckdb

from lyra_resources.schema import TableSpec

if TYPE_CHECKING:  # pandas is imported by the calls that read or write data frames, not by every command
    import pandas as pd

# A DuckDB connection, or (store in Postgres) a lyra_resources.store.postgres.PostgresConnection:
# both answer execute(sql, params) → fetchone/fetchall/df, register/unregister and close.
Connection = Any

POSTGRES_SCHEMA = "lyra"  # the store's tables in Postgres; Dagster's own keep `public`


def is_postgres(conn: Connection) -> bool:
    """Whether ``conn`` is a session of the Postgres store (its SQL then runs on Postgres)."""
    return getattr(conn, "is_postgres", False)


def fetch_rows(conn: Connection, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    """The rows of a query as plain dicts (column name → value): no data frame, no pandas."""
    cursor = conn.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def create_tables(
    conn: Connection,
    specs: Sequence[TableSpec],
    *,
    schema: str = "main",
    ddl: Callable[[TableSpec], str] = TableSpec.ddl,
    column_type: Callable[[str], str] = lambda contract_type: contract_type,
) -> None:
    """Create the tables of ``specs`` the database lacks and add the columns a newer Lyra added to
    an older database's tables; ``ddl`` and ``column_type`` give the engine's SQL for a table and
    for a contract type (DuckDB's by default)."""
    existing: dict[
        str, set[str]
    ] = {}  # one catalog query, not two statements per table: every command opens the store
    for name, column in conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = ?", [schema]
    ).fetchall():
        existing.setdefault(name, set()).add(column)
    for spec in specs:
        if spec.name not in existing:
            conn.execute(ddl(spec))
            continue
        for col in spec.columns:
            if col.name not in existing[spec.name]:  # a database from an older Lyra
                col_type = column_type(col.type).replace("PRIMARY KEY", "").strip()
                conn.execute(f"ALTER TABLE {schema}.{spec.name} ADD COLUMN {col.name} {col_type}")


def swap_rows(conn: Connection, table: str, key: str, value: str, frame: pd.DataFrame) -> None:
    """Within the caller's transaction: the rows of ``table`` whose ``key`` is ``value`` become ``frame``."""
    if is_postgres(conn):
        conn.execute(f"DELETE FROM {table} WHERE {key} = ?", [value])
        conn.insert_rows(table, frame)
        return
    conn.register("incoming_rows", frame)
    try:
        conn.execute(f"DELETE FROM {table} WHERE {key} = ?", [value])
        conn.execute(f"INSERT INTO {table} BY NAME SELECT * FROM incoming_rows")
    finally:  # after a failed insert the transaction is aborted: the error to report is the insert's
        with contextlib.suppress(duckdb.TransactionException):
            conn.unregister("incoming_rows")


def sql_literal(value: str) -> str:
    """``value`` as a quoted SQL string literal."""
    return "'" + value.replace("'", "''") + "'"
