"""One task's rows across the per-task tables, as the store's SQL sees them: a table's spec, a frame
conformed to its columns, the task's rows read for a Parquet generation, and every row removed.
``LyraStore`` runs these inside its transactions (``lyra_resources.store.lyra_store``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lyra_resources.schema import PER_TASK_TABLES, STAGE_PREFIX, TABLES, TableSpec
from lyra_resources.store.locks import StoreError
from lyra_resources.store.sql import Connection

if TYPE_CHECKING:
    import pandas as pd


def table_spec(table: str, *, per_task: bool) -> TableSpec:
    """The spec of ``table``; an unknown table, or one not partitioned by task where ``per_task``,
    is a StoreError naming it."""
    spec = TABLES.get(table)
    if spec is None:
        raise StoreError(f"unknown table {table!r}; known tables: {', '.join(sorted(TABLES))}")
    if per_task and not spec.per_task:
        raise StoreError(f"table {table!r} is not partitioned by task")
    return spec


def conform(spec: TableSpec, task_id: str, frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as the rows of ``task_id`` in ``spec``'s table: its columns in the table's order;
    a missing or unexpected column is a StoreError naming them."""
    frame = frame.copy()
    frame["task_id"] = task_id
    missing = [c for c in spec.column_names if c not in frame.columns]
    extra = [c for c in frame.columns if c not in spec.column_names]
    if missing or extra:
        raise StoreError(
            f"rows for {spec.name!r} do not match its columns: missing {missing}, unexpected {extra}"
        )
    return frame[spec.column_names].reset_index(drop=True)


def read_task_tables(
    conn: Connection, task_id: str, real_table: Callable[[Connection, str], str]
) -> tuple[tuple | None, dict[str, tuple[TableSpec, pd.DataFrame]]]:
    """The task's published run (run id, published at; None: none) and its rows of every per-task
    table as readers see them (``real_table``: the table or the view that shows a staged run)."""
    published = conn.execute(
        "SELECT run_id, published_at FROM task_generations WHERE task_id = ? AND state = 'published' LIMIT 1",
        [task_id],
    ).fetchone()
    tables = {}
    for name in PER_TASK_TABLES:
        spec = TABLES[name]
        cols = ", ".join(spec.column_names)
        tables[name] = (
            spec,
            conn.execute(
                f"SELECT {cols} FROM {real_table(conn, name)} WHERE task_id = ? ORDER BY {cols}", [task_id]
            ).df(),
        )
    return published, tables


def delete_task_rows(conn: Connection, task_id: str) -> dict[str, int]:
    """Remove the task's rows from every per-task table (staged ones too), its generations, its
    recorded inputs, its pending run requests and its ``tasks`` row; returns the rows removed per table."""
    removed = {}
    for table in PER_TASK_TABLES:
        removed[table] = conn.execute(
            f"SELECT count(*) FROM {table} WHERE task_id = ?", [task_id]
        ).fetchone()[0]
        conn.execute(f"DELETE FROM {table} WHERE task_id = ?", [task_id])
        conn.execute(f"DELETE FROM {STAGE_PREFIX}{table} WHERE task_id = ?", [task_id])
    conn.execute("DELETE FROM task_generations WHERE task_id = ?", [task_id])
    conn.execute("DELETE FROM table_inputs WHERE task_id = ?", [task_id])
    conn.execute("DELETE FROM run_requests WHERE task_id = ?", [task_id])
    conn.execute("DELETE FROM tasks WHERE id = ?", [task_id])
    return removed
