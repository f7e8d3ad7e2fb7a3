"""What the rows of each of a task's tables were built from: one ``table_inputs`` row per table a
run wrote, holding the digest of the asset's code and inputs (``lyra_assets.reuse``).

The rows that stand for a table are those of the latest run that wrote it and whose generation
was published (``lyra_resources.store.generations``), or that wrote in place (a run without a
generation). A run that failed or was killed before publishing leaves digests nobody reads, so a
table is never taken as built from inputs its standing rows were not built from.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from lyra_resources.store.lyra_store import LyraStore


def record_table_inputs(
    store: LyraStore, task_id: str, run_id: str, tables: Iterable[str], digest: str
) -> None:
    """Record that ``run_id`` wrote ``tables`` of ``task_id`` from inputs of ``digest`` (after the
    rows themselves: a process killed in between leaves no digest, and the table is rebuilt)."""
    now = datetime.now(UTC).replace(tzinfo=None)
    rows = [[task_id, table, run_id, digest, now] for table in tables]

    def insert(conn) -> None:
        for row in rows:  # one statement per row: both backends' connections take it
            conn.execute(
                "INSERT INTO table_inputs (task_id, table_name, run_id, inputs_digest, written_at) "
                "VALUES (?, ?, ?, ?, ?)",
                row,
            )

    store.transaction(insert)


def standing_inputs(store: LyraStore, task_id: str, tables: Iterable[str]) -> dict[str, str | None]:
    """The inputs digest of the rows that stand for each of ``tables`` (None: unknown)."""
    wanted = list(tables)
    with store.connect() as conn:
        found = dict(
            conn.execute(
                "SELECT table_name, inputs_digest FROM (SELECT t.table_name, t.inputs_digest, row_number() OVER "
                "(PARTITION BY t.table_name ORDER BY t.written_at DESC) AS n FROM table_inputs t "
                "LEFT JOIN task_generations g ON g.run_id = t.run_id "
                "WHERE t.task_id = ? AND (g.run_id IS NULL OR g.published_at IS NOT NULL)) latest WHERE n = 1",
                [task_id],
            ).fetchall()
        )
    return {table: found.get(table) for table in wanted}
