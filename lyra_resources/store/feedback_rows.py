"""The store's side of feedback (docs/feedback.md): the rows a feedback call checks and the rows it
writes, each function one statement run inside the caller's transaction. What a call means and
answers (validation, outcomes, the effect on scores) is ``lyra_tools.feedback``'s; the audit row
of every accepted call is :func:`record_event`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, NamedTuple

from lyra_resources.store.sql import Connection, fetch_rows

# The rows a note may name, by table and id column (names from code only, never from a caller).
NOTE_TARGETS = (
    ("claims", "claim_id"),
    ("nli_edges", "edge_id"),
    ("fragments", "fragment_id"),
    ("pages", "page_id"),
)


def now() -> datetime:
    """The time feedback rows are stamped with: UTC, without a zone (as every table stores it)."""
    return datetime.now(UTC).replace(tzinfo=None)


# -- checks -----------------------------------------------------------------------------------------


def has_claim(conn: Connection, task_id: str, claim_id: str) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM claims WHERE task_id = ? AND claim_id = ?", [task_id, claim_id]
        ).fetchone()
        is not None
    )


def has_fragment(conn: Connection, task_id: str, fragment_id: str) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM fragments WHERE task_id = ? AND fragment_id = ?", [task_id, fragment_id]
        ).fetchone()
        is not None
    )


def has_page(conn: Connection, task_id: str, page_id: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM pages WHERE task_id = ? AND page_id = ?", [task_id, page_id]).fetchone()
        is not None
    )


def names_a_row_of(conn: Connection, task_id: str, target_id: str) -> bool:
    """Whether ``target_id`` is a claim, edge, fragment or page of the task."""
    return any(
        conn.execute(
            f"SELECT 1 FROM {table} WHERE task_id = ? AND {column} = ?",  # names from code only
            [task_id, target_id],
        ).fetchone()
        for table, column in NOTE_TARGETS
    )


def claim_text(conn: Connection, task_id: str, claim_id: str) -> str:
    return conn.execute(
        "SELECT text FROM claims WHERE task_id = ? AND claim_id = ?", [task_id, claim_id]
    ).fetchone()[0]


def task_query(conn: Connection, task_id: str) -> str:
    return conn.execute("SELECT query FROM tasks WHERE id = ?", [task_id]).fetchone()[0]


def task_domains(conn: Connection) -> list[dict[str, Any]]:
    """Every (task_id, domain) with a page: the tasks a domain rule reaches."""
    return fetch_rows(conn, "SELECT DISTINCT task_id, domain FROM pages WHERE domain IS NOT NULL")


# -- the audit row ----------------------------------------------------------------------------------


def record_event(
    conn: Connection, event_id: str, task_id: str, action: str, target_id: str, payload: str, outcome: str
) -> None:
    conn.execute(
        "INSERT INTO feedback_events (id, task_id, action, target_id, payload, outcome, created_at, "
        "applied_to_training) VALUES (?, ?, ?, ?, ?, ?, ?, false)",
        [event_id, task_id, action, target_id, payload, outcome, now()],
    )


# -- edges ------------------------------------------------------------------------------------------


class EdgeUnderReview(NamedTuple):
    """An edge as its reviewer corrects it: the model's relation and what it judged."""

    claim_id: str
    model_relation: str
    model_confidence: float
    premise: str | None
    hypothesis: str | None
    judged_by: str | None
    claim_direction: str | None


def edge_under_review(conn: Connection, task_id: str, edge_id: str) -> EdgeUnderReview | None:
    row = conn.execute(
        "SELECT e.claim_id, e.relation, e.nli_confidence, f.text, c.text, e.judged_by, e.claim_direction "
        "FROM nli_edges e "
        "LEFT JOIN fragments f ON f.task_id = e.task_id AND f.fragment_id = e.fragment_id "
        "LEFT JOIN claims c ON c.task_id = e.task_id AND c.claim_id = e.claim_id "
        "WHERE e.task_id = ? AND e.edge_id = ?",
        [task_id, edge_id],
    ).fetchone()
    return EdgeUnderReview(*row) if row is not None else None


def reviewed_relation(conn: Connection, edge_id: str) -> str | None:
    """The relation a reviewer gave the edge last, if any."""
    row = conn.execute("SELECT correct_relation FROM edge_reviews WHERE edge_id = ?", [edge_id]).fetchone()
    return row[0] if row else None


def store_review(
    conn: Connection,
    edge_id: str,
    task_id: str,
    reviewed_at: datetime,
    correct_relation: str,
    reason: str | None,
    human_corrected: bool,
    wrong_part: str | None,
) -> None:
    """The edge's review, replacing an earlier one."""
    conn.execute(
        "INSERT INTO edge_reviews (edge_id, task_id, reviewed_at, correct_relation, reason, human_corrected, "
        "wrong_part) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (edge_id) DO UPDATE SET "
        "reviewed_at = excluded.reviewed_at, correct_relation = excluded.correct_relation, reason = excluded.reason, "
        "human_corrected = excluded.human_corrected, wrong_part = excluded.wrong_part",
        [edge_id, task_id, reviewed_at, correct_relation, reason, human_corrected, wrong_part],
    )


def withdraw_unused_corrections(conn: Connection, edge_id: str) -> None:
    """One training sample per edge in force: a newer judgement supersedes an unused older one."""
    conn.execute("DELETE FROM nli_corrections WHERE edge_id = ? AND applied_in_version IS NULL", [edge_id])


def store_correction(
    conn: Connection,
    correction_id: str,
    edge_id: str,
    task_id: str,
    edge: EdgeUnderReview,
    correct_label: str,
    reason: str | None,
    corrected_at: datetime,
    wrong_part: str | None,
    direction_label: str | None,
) -> None:
    """A training sample for the NLI model (and, with ``direction_label``, for the direction reader)."""
    conn.execute(
        "INSERT INTO nli_corrections (id, edge_id, task_id, premise, hypothesis, predicted_label, "
        "predicted_confidence, correct_label, reason, corrected_at, applied_in_version, sample_weight, "
        "wrong_part, direction_label) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 1.0, ?, ?)",
        [
            correction_id,
            edge_id,
            task_id,
            edge.premise or "",
            edge.hypothesis or "",
            edge.model_relation,
            float(edge.model_confidence),
            correct_label,
            reason,
            corrected_at,
            wrong_part,
            direction_label,
        ],
    )


# -- claims -----------------------------------------------------------------------------------------


def claim_rejected(conn: Connection, claim_id: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM claim_rejections WHERE claim_id = ? AND is_active", [claim_id]).fetchone()
        is not None
    )


def reject_claim(conn: Connection, claim_id: str, task_id: str, reason: str | None) -> None:
    conn.execute(
        "INSERT INTO claim_rejections (claim_id, task_id, reason, rejected_at, restored_at, is_active) "
        "VALUES (?, ?, ?, ?, NULL, true) ON CONFLICT (claim_id) DO UPDATE SET reason = excluded.reason, "
        "rejected_at = excluded.rejected_at, restored_at = NULL, is_active = true",
        [claim_id, task_id, reason, now()],
    )


def restore_claim(conn: Connection, claim_id: str) -> None:
    conn.execute(
        "UPDATE claim_rejections SET is_active = false, restored_at = ? WHERE claim_id = ?", [now(), claim_id]
    )


# -- domain rules -----------------------------------------------------------------------------------


def active_rules(conn: Connection, pattern: str) -> list[tuple[str, str]]:
    """(rule id, decision) of the pattern's rules in force."""
    return [
        tuple(row)
        for row in conn.execute(
            "SELECT id, decision FROM domain_override_rules WHERE domain_pattern = ? AND is_active", [pattern]
        ).fetchall()
    ]


def retire_rule(conn: Connection, rule_id: str) -> None:
    conn.execute("UPDATE domain_override_rules SET is_active = false WHERE id = ?", [rule_id])


def store_rule(conn: Connection, rule_id: str, pattern: str, decision: str, reason: str | None) -> None:
    conn.execute(
        "INSERT INTO domain_override_rules (id, domain_pattern, decision, reason, created_at, is_active) "
        "VALUES (?, ?, ?, ?, ?, true)",
        [rule_id, pattern, decision, reason, now()],
    )


def record_rule_event(
    conn: Connection,
    event_id: str,
    rule_id: str | None,
    action: str,
    pattern: str,
    decision: str,
    reason: str | None,
) -> None:
    conn.execute(
        "INSERT INTO domain_override_events (id, rule_id, action, domain_pattern, decision, reason, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [event_id, rule_id, action, pattern, decision, reason or None, now()],
    )
