"""What a task's status and summary count and list beside its claims: edges per claim and relation,
the claims' stored verdicts, the task's pages and fragments, its feedback, the NLI version on its
edges, the domains source verification blocked, and the tasks of the home."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lyra_resources.store.reviewed_graph.queries import in_ids
from lyra_resources.store.sql import Connection, fetch_rows

PRIMARY_KINDS = ("abstract", "paper")  # scholarly records, as opposed to web pages


def edge_relations(conn: Connection, task_id: str) -> list[tuple[str, str, int]]:
    """(claim id, relation, edges) of the model's edges."""
    return [
        tuple(r)
        for r in conn.execute(
            "SELECT claim_id, relation, count(*) FROM nli_edges WHERE task_id = ? GROUP BY 1, 2", [task_id]
        ).fetchall()
    ]


def stored_verdicts(conn: Connection, task_id: str) -> list[tuple[str, str, int]]:
    """(claim id, verdict, refuting edges) as the claims asset scored them: adopted claims only."""
    return [
        tuple(r)
        for r in conn.execute(
            "SELECT claim_id, verdict, refuting_count FROM claim_scores WHERE task_id = ?", [task_id]
        ).fetchall()
    ]


def task_counts(conn: Connection, task_id: str) -> tuple[int, int, int, int, int]:
    """(adopted claims but the hypothesis, claims not adopted, pages, scholarly pages, fragments)."""
    return tuple(
        conn.execute(
            "SELECT count(*) FILTER (WHERE adoption_status = 'adopted' AND origin <> 'hypothesis'), "
            "count(*) FILTER (WHERE adoption_status <> 'adopted'), "
            "(SELECT count(*) FROM pages WHERE task_id = $1), "
            "(SELECT count(*) FROM pages WHERE task_id = $1 AND kind IN "
            f"({', '.join(repr(k) for k in PRIMARY_KINDS)})), "
            "(SELECT count(*) FROM fragments WHERE task_id = $1) FROM claims WHERE task_id = $1",
            [task_id],
        ).fetchone()
    )


def feedback_counts(conn: Connection, task_id: str) -> tuple[int, int, int]:
    """(feedback events, reviewed edges, corrected edges) of the task."""
    events, reviewed, corrected = conn.execute(
        "SELECT (SELECT count(*) FROM feedback_events WHERE task_id = $1), "
        "(SELECT count(*) FROM edge_reviews WHERE task_id = $1), "
        "(SELECT count(*) FROM edge_reviews WHERE task_id = $1 AND human_corrected)",
        [task_id],
    ).fetchone()
    return int(events), int(reviewed), int(corrected)


def edges_nli_version(conn: Connection, task_id: str) -> str | None:
    """The NLI model version on most of the task's edges."""
    row = conn.execute(
        "SELECT model_version FROM nli_edges WHERE task_id = ? AND model_version IS NOT NULL "
        "GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1",
        [task_id],
    ).fetchone()
    return row[0] if row else None


def domain_trust(conn: Connection, task_id: str, domains: Sequence[str]) -> dict[str, str | None]:
    """The trust level the task's edges recorded for each of ``domains``."""
    if not domains:
        return {}
    cond, params, _ = in_ids("p.domain", sorted(domains))
    return dict(
        conn.execute(
            "SELECT p.domain, any_value(e.source_trust_level) FROM nli_edges e JOIN pages p "
            f"ON p.task_id = e.task_id AND p.page_id = e.page_id WHERE e.task_id = ? AND {cond} GROUP BY 1",
            [task_id, *params],
        ).fetchall()
    )


def verification_blocks(conn: Connection, task_id: str) -> list[dict[str, Any]]:
    """The domains source verification blocked for the task, by domain."""
    return fetch_rows(
        conn,
        "SELECT domain, blocked_at, reason, cause_ids, original_trust_level, can_restore, restore_via "
        "FROM domain_verification WHERE task_id = ? AND status = 'BLOCKED' ORDER BY domain",
        [task_id],
    )


def task_total(conn: Connection) -> int:
    return conn.execute("SELECT count(*) FROM tasks").fetchone()[0]


def task_page(conn: Connection, limit: int, offset: int) -> list[dict[str, Any]]:
    """Tasks oldest first: id, query, status and times."""
    return fetch_rows(
        conn,
        "SELECT id, query, status, created_at, updated_at FROM tasks "
        "ORDER BY created_at, id LIMIT ? OFFSET ?",
        [limit, offset],
    )
