"""Lyra's own SQL over one task's model output: rows as plain dicts, id filters, the task, its
claims' edges and its topics. Nothing here applies human feedback (that is :mod:`.overlay`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb

from lyra_core.cells import cell_list
from lyra_core.evidence_facts import facts_line
from lyra_core.hypothesis import HYPOTHESIS
from lyra_resources.store.reviewed_graph.papers import add_paper_fields
from lyra_resources.store.reviewed_graph.records import ExploreError
from lyra_resources.store.sql import fetch_rows  # noqa: F401 (re-exported: the effective views' SQL reads rows with it)

# Tool answers must take milliseconds, so rows come back as plain dicts (no DataFrames), task-wide
# figures are SQL aggregates over the model's rows, and only the claims the overlay touches are
# rescored in Python from their effective edges. Id sets never travel as one LIST parameter
# (DuckDB then tests every row of the table against the list): short ones become ``IN (?, …)``,
# long ones are filtered in Python after a query on the task alone.

SCORE_COLUMNS = [
    "alpha",
    "beta",
    "confidence",
    "uncertainty",
    "controversy",
    "verdict",
    "supporting_count",
    "refuting_count",
    "neutral_count",
    "independent_sources",
    "evidence_count",
    "certainty",
    "certainty_reasons",
]
CLAIM_SQL = (
    "SELECT c.claim_id, c.task_id, c.text, c.origin, c.relevance, c.adoption_status, "
    + ", ".join(f"s.{c}" for c in SCORE_COLUMNS)
    + ", s.method FROM claims c LEFT JOIN claim_scores s ON s.task_id = c.task_id AND s.claim_id = c.claim_id "
    "WHERE c.task_id = ? AND c.adoption_status = 'adopted'"
)
EDGE_COLUMNS = (
    "e.edge_id, e.claim_id, e.fragment_id, e.relation, e.nli_confidence, e.page_id, "
    "e.source_trust_level, e.target_trust_level, e.p_supports, e.p_refutes, e.p_neutral, e.reason, "
    "e.study_design, e.design_cue, e.sample_size, e.effect_figures, e.judged_by, e.exposure_matched, "
    "e.outcome_matched"
)
_MAX_IN = 100  # ids passed as IN (?, …); more are filtered in Python


def in_ids(column: str, ids: Sequence[str]) -> tuple[str, list[str], set[str] | None]:
    """SQL condition, its parameters, and the set to filter by in Python when ids are many."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return "FALSE", [], None
    if len(ids) <= _MAX_IN:
        return f"{column} IN ({', '.join('?' * len(ids))})", ids, None
    return "TRUE", [], set(ids)


def require_task(conn: duckdb.DuckDBPyConnection, task_id: str) -> dict[str, Any]:
    if not isinstance(task_id, str) or not task_id or len(task_id) > 100:
        raise ExploreError("task_id must be a task id string such as 'task_1a2b3c4d' (see list_tasks)")
    rows = fetch_rows(
        conn, "SELECT id, query, status, created_at, updated_at, error FROM tasks WHERE id = ?", [task_id]
    )
    if not rows:
        raise ExploreError(f"no task {task_id!r} (list_tasks shows the known tasks)")
    return rows[0]


def claim_edges(
    conn: duckdb.DuckDBPyConnection, task_id: str, claim_ids: Sequence[str], with_sources: bool = False
) -> list[dict[str, Any]]:
    """The model's edges of ``claim_ids`` with their page's domain; ``with_sources`` adds the
    page's url, title, kind and paper (its id, year and DOI) and the fragment's text."""
    cond, params, post = in_ids("e.claim_id", claim_ids)
    if cond == "FALSE":
        return []
    if with_sources:
        sql = (
            f"SELECT {EDGE_COLUMNS}, p.domain, p.url, p.title, p.kind, p.paper_id, f.text FROM nli_edges e "
            "LEFT JOIN pages p ON p.task_id = e.task_id AND p.page_id = e.page_id "
            "LEFT JOIN fragments f ON f.task_id = e.task_id AND f.fragment_id = e.fragment_id "
        )
    else:
        sql = (
            f"SELECT {EDGE_COLUMNS}, p.domain FROM nli_edges e "
            "LEFT JOIN pages p ON p.task_id = e.task_id AND p.page_id = e.page_id "
        )
    rows = fetch_rows(conn, sql + f"WHERE e.task_id = ? AND {cond}", [task_id, *params])
    rows = rows if post is None else [r for r in rows if r["claim_id"] in post]
    if with_sources:
        add_paper_fields(conn, task_id, rows)
    return rows


def hypothesis_ids(conn: duckdb.DuckDBPyConnection, task_id: str) -> set[str]:
    return {
        r[0]
        for r in conn.execute(
            "SELECT claim_id FROM claims WHERE task_id = ? AND origin = ?", [task_id, HYPOTHESIS]
        ).fetchall()
    }


def task_topics(conn: duckdb.DuckDBPyConnection, task_id: str) -> list[dict[str, Any]]:
    return fetch_rows(
        conn,
        "SELECT topic_id, label, claim_ids, terms FROM claim_topics WHERE task_id = ? "
        "ORDER BY claim_count DESC, topic_id",
        [task_id],
    )


def find_topic(conn: duckdb.DuckDBPyConnection, task_id: str, topic: str) -> dict[str, Any]:
    wanted = (topic or "").strip()
    rows = fetch_rows(
        conn,
        "SELECT topic_id, label, claim_ids FROM claim_topics WHERE task_id = ? "
        "AND (topic_id = ? OR lower(label) = lower(?)) ORDER BY topic_id <> ?, topic_id",
        [task_id, wanted, wanted, wanted],
    )
    if not rows:
        raise ExploreError(
            f"no topic {wanted[:80]!r} in this task: pass a topic_id or label from list_claim_topics"
        )
    return rows[0]


BY_RELEVANCE = "c.relevance DESC NULLS LAST, c.claim_id"


def adopted_claim_ids(conn: duckdb.DuckDBPyConnection, task_id: str) -> list[str]:
    """The task's adopted claims but the hypothesis, most relevant first."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT c.claim_id FROM claims c WHERE c.task_id = ? AND c.adoption_status = 'adopted' "
            f"AND c.origin <> 'hypothesis' ORDER BY {BY_RELEVANCE}",
            [task_id],
        ).fetchall()
    ]


def claim_row(conn: duckdb.DuckDBPyConnection, task_id: str, claim_id: str) -> dict[str, Any] | None:
    """One claim of the task, adopted or not, with its stored score (none for a claim never judged)."""
    found = fetch_rows(
        conn,
        CLAIM_SQL.replace("AND c.adoption_status = 'adopted'", "AND c.claim_id = ?"),
        [task_id, claim_id],
    )
    return found[0] if found else None


def task_of_claim(conn: duckdb.DuckDBPyConnection, claim_id: str) -> str | None:
    """The task a claim id belongs to (claim ids are unique across tasks), if any."""
    found = conn.execute("SELECT task_id FROM claims WHERE claim_id = ? LIMIT 1", [claim_id]).fetchone()
    return found[0] if found else None


def topic_labels(conn: duckdb.DuckDBPyConnection, task_id: str, claim_ids: Sequence[str]) -> dict[str, str]:
    wanted = set(claim_ids)
    return {
        c: label
        for label, ids in conn.execute(
            "SELECT label, claim_ids FROM claim_topics WHERE task_id = ?", [task_id]
        ).fetchall()
        for c in cell_list(ids)
        if c in wanted
    }


def page_edges(conn: duckdb.DuckDBPyConnection, task_id: str, pages: Sequence[str]) -> list[dict[str, Any]]:
    """The model's edges whose passage is on one of ``pages``, as the overlay takes them."""
    if not pages:
        return []
    return fetch_rows(
        conn,
        f"SELECT {EDGE_COLUMNS} FROM nli_edges e WHERE e.task_id = ? AND e.page_id IN "
        f"({', '.join('?' * len(pages))})",
        [task_id, *pages],
    )


def paper_facts_of_claims(
    conn: duckdb.DuckDBPyConnection, task_id: str, claim_ids: list[str]
) -> dict[str, str]:
    """The design and size of the paper each claim was extracted from ("RCT, n = 215"), as the task's
    edges read them from that paper (any claim's: its own claims never meet it); "" where none does."""
    cond, params, post = in_ids("c.claim_id", claim_ids)
    found = fetch_rows(
        conn,
        "SELECT c.claim_id, any_value(e.study_design) AS study_design, max(e.sample_size) AS sample_size "
        "FROM claims c JOIN fragments f ON f.task_id = c.task_id AND f.fragment_id = c.source_fragment_id "
        "JOIN nli_edges e ON e.task_id = f.task_id AND e.page_id = f.page_id "
        f"WHERE c.task_id = ? AND {cond} GROUP BY c.claim_id",
        [task_id, *params],
    )
    return {
        r["claim_id"]: facts_line(r["study_design"], r["sample_size"])
        for r in found
        if post is None or r["claim_id"] in post
    }
