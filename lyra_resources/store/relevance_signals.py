"""The relevance signals agents leave on fragments (docs/feedback.md#relevance-signals): each
fragment an agent was shown ('returned') and each it judged useful or not ('explicit_positive',
'explicit_negative'), stored in ``relevance_signals``; and what they add up to, per fragment of a
task: its counts and the ranking multiplier the next run applies."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

from lyra_core.feedback import RelevanceStats, relevance_multiplier
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.sql import Connection

ROWS_PER_INSERT = 500  # one multi-row INSERT per this many signals

# One row per fragment of a task that has signals.
_STATS_SQL = (
    "SELECT fragment_id, count(*) FILTER (WHERE signal = 'returned') AS returns, "
    "count(*) FILTER (WHERE signal = 'explicit_positive') AS positive, "
    "count(*) FILTER (WHERE signal = 'explicit_negative') AS negative "
    "FROM relevance_signals WHERE task_id = ? {fragment} GROUP BY fragment_id"
)


def insert_signals(
    conn: Connection, task_id_fragment_signal_query: Sequence[tuple[str, str, str, str | None, str | None]]
) -> None:
    """Within the caller's transaction: store each (task_id, fragment_id, signal, query_id, query)."""
    now = datetime.now(UTC).replace(tzinfo=None)
    values = [
        [f"rs_{uuid.uuid4().hex[:16]}", task_id, fragment_id, signal, query_id, query, now]
        for task_id, fragment_id, signal, query_id, query in task_id_fragment_signal_query
    ]
    for start in range(0, len(values), ROWS_PER_INSERT):
        chunk = values[start : start + ROWS_PER_INSERT]
        conn.execute(
            "INSERT INTO relevance_signals (id, task_id, fragment_id, signal, query_id, query, created_at) "
            "VALUES " + ", ".join(["(?, ?, ?, ?, ?, ?, ?)"] * len(chunk)),
            [v for row in chunk for v in row],
        )


def record_returns(store: LyraStore, rows: Sequence[tuple[str, str, str, str]]) -> int:
    """Store the implicit 'returned' signals — (task_id, fragment_id, query_id, query) for each
    fragment an agent was shown — in one transaction; how many were stored."""
    if not rows:
        return 0
    signals = [(task_id, fid, "returned", query_id, query[:1000]) for task_id, fid, query_id, query in rows]
    store.transaction(lambda conn: insert_signals(conn, signals))
    return len(signals)


def fragment_stats(conn: Connection, task_id: str, fragment_id: str) -> RelevanceStats:
    """The signals one fragment of the task has gathered (none yet: all zero)."""
    row = conn.execute(_STATS_SQL.format(fragment="AND fragment_id = ?"), [task_id, fragment_id]).fetchone()
    return RelevanceStats(returns=row[1], positive=row[2], negative=row[3]) if row else RelevanceStats()


def relevance_multipliers(store: LyraStore, task_id: str) -> dict[str, float]:
    """The ranking multiplier of every fragment of the task that has relevance signals (others weigh 1.0)."""
    with store.connect() as conn:
        rows = conn.execute(_STATS_SQL.format(fragment=""), [task_id]).fetchall()
    return {
        fragment_id: relevance_multiplier(
            RelevanceStats(returns=returns, positive=positive, negative=negative)
        )
        for fragment_id, returns, positive, negative in rows
    }
