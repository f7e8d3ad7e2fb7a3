"""Applying feedback to the store: one short transaction per call, validated against the task's ids.

Every accepted call writes an audit row to ``feedback_events`` in the same transaction as its
effect, so either both are stored or neither (a rejected call leaves every table as it was).
The transaction is retried as a whole while another process holds the database, so feedback
given during a materialization waits briefly instead of failing. A call with a client
``request_id`` stores its answer in that same transaction (``lyra_resources.store.request_ids``), so a
retried call returns the first answer instead of applying the action twice. Feedback that changes
the effective graph (an edge corrected, a claim rejected or restored, a domain rule) rewrites the
report files of every task it touches right after its transaction.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Mapping
from typing import Any

import duckdb
from pydantic import BaseModel, Field

from lyra_core import feedback as fb
from lyra_core.untrusted import MarksUntrusted, UntrustedText
from lyra_resources.store import feedback_rows, request_ids
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.relevance_signals import fragment_stats, insert_signals
from lyra_resources.store.reviewed_graph.overlay import load_claims, load_overlay
from lyra_resources.store.reviewed_graph.queries import require_task
from lyra_resources.store.reviewed_graph.records import ExploreError

MAX_ARGS_BYTES = 16_000
GRAPH_ACTIONS = (*fb.EDGE_ACTIONS, *fb.CLAIM_ACTIONS, *fb.RULE_ACTIONS)  # what changes a report

log = logging.getLogger(__name__)


class FeedbackError(ValueError):
    """Feedback that cannot be applied (unknown id, bad arguments); the store is unchanged."""


class ScoreAfter(BaseModel):
    claim_id: str
    confidence: float | None
    controversy: float | None
    verdict: str | None
    supporting_count: int
    refuting_count: int
    recomputed: bool


class EdgeEffect(BaseModel):
    edge_id: str
    claim_id: str
    model_relation: str
    model_confidence: float
    effective_relation: str
    human_corrected: bool
    correction_id: str | None = Field(
        None, description="the nli_corrections row written, when the label changed"
    )


class RuleEffect(BaseModel):
    rule_id: str | None
    domain_pattern: str
    decision: str | None
    is_active: bool
    task_domains_blocked: list[UntrustedText] = Field(default_factory=list)


class RelevanceEffect(BaseModel):
    fragment_id: str
    returns: int
    positive: int
    negative: int
    multiplier: float = Field(
        description="the ranking multiplier (docs/feedback.md) the next run of the task applies"
    )


class FeedbackResult(MarksUntrusted):
    event_id: str
    task_id: str
    action: str
    target_id: str
    changed: bool
    outcome: str
    edge: EdgeEffect | None = None
    claim: ScoreAfter | None = None
    rule: RuleEffect | None = None
    relevance: RelevanceEffect | None = None


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


def apply_feedback(
    store: LyraStore, task_id: str, action: str, args: Mapping[str, Any] | None, request_id: str | None = None
) -> FeedbackResult:
    """Validate and apply one feedback action atomically; FeedbackError says what was wrong. With a
    ``request_id`` already answered, the stored answer is returned and nothing is written."""
    if not isinstance(task_id, str) or not task_id or len(task_id) > 100:
        raise FeedbackError("task_id must be a task id string such as 'task_1a2b3c4d' (see list_tasks)")
    try:
        size = len(json.dumps(args, default=str))
    except (TypeError, ValueError) as exc:
        raise FeedbackError(f"{action}: args must be a JSON object ({exc})") from None
    if size > MAX_ARGS_BYTES:
        raise FeedbackError(f"{action}: args are {size:,} bytes; at most {MAX_ARGS_BYTES:,} are accepted")
    try:
        parsed = fb.parse_args(action, args)
    except fb.FeedbackArgsError as exc:
        raise FeedbackError(str(exc)) from None

    def work(conn: duckdb.DuckDBPyConnection) -> FeedbackResult:
        call = {"task_id": task_id, "action": action, "args": args}
        try:
            return request_ids.once(conn, request_id, "feedback", call, FeedbackResult, lambda: write(conn))
        except request_ids.RequestIdError as exc:
            raise FeedbackError(str(exc)) from None

    def write(conn: duckdb.DuckDBPyConnection) -> FeedbackResult:
        try:
            require_task(conn, task_id)
        except ExploreError as exc:
            raise FeedbackError(str(exc)) from None
        handler = _HANDLERS[action]
        result = handler(conn, task_id, action, parsed)
        feedback_rows.record_event(
            conn, result.event_id, task_id, action, result.target_id, parsed.model_dump_json(), result.outcome
        )
        return result

    result = store.transaction(work)
    if result.changed and result.action in GRAPH_ACTIONS:
        rewrite_reports(store, result)
    return result


def rewrite_reports(store: LyraStore, result: FeedbackResult) -> None:
    """Write again the report of the task the feedback was given on and, for a domain rule (in force
    for every task), of each other task with a page of a domain the rule's pattern matches. A report
    that cannot be written is logged: the feedback itself is stored already."""
    from lyra_resources.store.reviewed_graph.report import (
        write_report,
    )  # only feedback that changes the graph needs it

    tasks = [result.task_id]
    if result.action in fb.RULE_ACTIONS:
        with store.connect() as conn:
            found = feedback_rows.task_domains(conn)
        tasks += sorted(
            {
                r["task_id"]
                for r in found
                if r["task_id"] != result.task_id and fb.pattern_matches(result.target_id, r["domain"])
            }
        )
    for task_id in tasks:
        try:
            write_report(store, task_id)
        except OSError as exc:
            log.warning("the report of %s cannot be written after feedback: %s", task_id, exc)


# -- handlers: each runs inside the call's transaction ------------------------------------------


def _edge_correct(conn, task_id: str, action: str, args: fb.EdgeCorrectArgs) -> FeedbackResult:
    edge = feedback_rows.edge_under_review(conn, task_id, args.edge_id)
    if edge is None:
        raise FeedbackError(
            f"edge_correct: no edge {args.edge_id!r} in task {task_id!r} "
            "(get_claim_evidence lists a claim's edge ids)"
        )
    claim_id, model_relation, model_confidence, judged_by, claim_direction = (
        edge.claim_id,
        edge.model_relation,
        edge.model_confidence,
        edge.judged_by,
        edge.claim_direction,
    )
    if args.wrong_part and judged_by != "direction":
        raise FeedbackError(
            f"edge_correct: wrong_part names a part of the direction judge's reading, and edge "
            f"{args.edge_id!r} was judged by the {judged_by or 'cross-encoder'}; leave wrong_part out"
        )
    direction_label = None
    if args.wrong_part == "passage_direction":
        from lyra_core.direction.verdict import (
            direction_of_correction,
        )  # the direction reader's patterns: only here

        direction_label = direction_of_correction(claim_direction, args.correct_relation)
    previous = feedback_rows.reviewed_relation(conn, args.edge_id)
    before = previous if previous is not None else model_relation
    now = feedback_rows.now()
    corrected = args.correct_relation != model_relation
    feedback_rows.store_review(
        conn,
        args.edge_id,
        task_id,
        now,
        args.correct_relation,
        args.reason or None,
        corrected,
        args.wrong_part or None,
    )
    correction_id = None
    changed = args.correct_relation != before
    if changed:
        feedback_rows.withdraw_unused_corrections(conn, args.edge_id)
        if corrected:
            correction_id = _new_id("corr")
            feedback_rows.store_correction(
                conn,
                correction_id,
                args.edge_id,
                task_id,
                edge,
                args.correct_relation,
                args.reason or None,
                now,
                args.wrong_part or None,
                direction_label,
            )
    if not changed:
        outcome = f"edge reviewed: label {args.correct_relation} confirmed, nothing changed"
    elif corrected:
        outcome = (
            f"edge corrected: {before} → {args.correct_relation}; correction sample {correction_id} stored"
        )
        if args.wrong_part:
            outcome += f" (the {args.wrong_part.replace('_', ' ')} was misread" + (
                f"; the passage reports {direction_label.replace('_', ' ')}: a direction reader sample)"
                if direction_label
                else ")"
            )
    else:
        outcome = f"edge restored to the model's label {model_relation}; the earlier correction is withdrawn"
    return FeedbackResult(
        event_id=_new_id("fb"),
        task_id=task_id,
        action=action,
        target_id=args.edge_id,
        changed=changed,
        outcome=outcome,
        claim=_score_after(conn, task_id, claim_id),
        edge=EdgeEffect(
            edge_id=args.edge_id,
            claim_id=claim_id,
            model_relation=model_relation,
            model_confidence=float(model_confidence),
            effective_relation=args.correct_relation,
            human_corrected=corrected,
            correction_id=correction_id,
        ),
    )


def _score_after(conn, task_id: str, claim_id: str) -> ScoreAfter | None:
    """The claim's effective score as every read tool now shows it (at once; docs/scoring.md#human-feedback)."""
    claims = load_claims(conn, task_id, load_overlay(conn, task_id), [claim_id])
    if not claims:
        return None  # a claim that was never adopted has no score
    row = claims[0]
    return ScoreAfter(
        claim_id=claim_id,
        confidence=row["confidence"],
        controversy=row["controversy"],
        verdict=row["verdict"],
        supporting_count=row["supporting_count"],
        refuting_count=row["refuting_count"],
        recomputed=row["recomputed"],
    )


def _require_claim(conn, task_id: str, action: str, claim_id: str) -> None:
    if not feedback_rows.has_claim(conn, task_id, claim_id):
        raise FeedbackError(
            f"{action}: no claim {claim_id!r} in task {task_id!r} (get_claims_by_topic lists claim ids)"
        )


def _claim_reject(conn, task_id: str, action: str, args: fb.ClaimArgs) -> FeedbackResult:
    _require_claim(conn, task_id, action, args.claim_id)
    active = feedback_rows.claim_rejected(conn, args.claim_id)
    if not active:
        feedback_rows.reject_claim(conn, args.claim_id, task_id, args.reason or None)
    return FeedbackResult(
        event_id=_new_id("fb"),
        task_id=task_id,
        action=action,
        target_id=args.claim_id,
        changed=not active,
        outcome="claim rejected: hidden from the read tools unless include_rejected is set"
        if not active
        else "claim was already rejected; nothing changed",
    )


def _claim_restore(conn, task_id: str, action: str, args: fb.ClaimArgs) -> FeedbackResult:
    _require_claim(conn, task_id, action, args.claim_id)
    active = feedback_rows.claim_rejected(conn, args.claim_id)
    if active:
        feedback_rows.restore_claim(conn, args.claim_id)
    return FeedbackResult(
        event_id=_new_id("fb"),
        task_id=task_id,
        action=action,
        target_id=args.claim_id,
        changed=bool(active),
        outcome="claim restored" if active else "claim was not rejected; nothing changed",
        claim=_score_after(conn, task_id, args.claim_id),
    )


def _rule_event(conn, rule_id: str | None, action: str, pattern: str, decision: str, reason: str) -> None:
    feedback_rows.record_rule_event(conn, _new_id("dev"), rule_id, action, pattern, decision, reason)


def _blocked_in_task(conn, task_id: str) -> list[str]:
    return sorted(load_overlay(conn, task_id).blocked)


def _domain_rule(conn, task_id: str, action: str, args: fb.DomainArgs) -> FeedbackResult:
    pattern = args.domain_pattern
    current = feedback_rows.active_rules(conn, pattern)
    if action == "domain_clear_override":
        if not current:
            raise FeedbackError(f"domain_clear_override: no active block or unblock rule for {pattern!r}")
        for rule_id, decision in current:
            feedback_rows.retire_rule(conn, rule_id)
            _rule_event(conn, rule_id, action, pattern, decision, args.reason)
        return FeedbackResult(
            event_id=_new_id("fb"),
            task_id=task_id,
            action=action,
            target_id=pattern,
            changed=True,
            outcome=f"override of {pattern!r} cleared ({current[-1][1]} rule retired)",
            rule=RuleEffect(
                rule_id=current[-1][0],
                domain_pattern=pattern,
                decision=None,
                is_active=False,
                task_domains_blocked=_blocked_in_task(conn, task_id),
            ),
        )
    decision = "block" if action == "domain_block" else "unblock"
    if [d for _, d in current] == [decision]:
        return FeedbackResult(
            event_id=_new_id("fb"),
            task_id=task_id,
            action=action,
            target_id=pattern,
            changed=False,
            outcome=f"{pattern!r} already has an active {decision} rule; nothing changed",
            rule=RuleEffect(
                rule_id=current[0][0],
                domain_pattern=pattern,
                decision=decision,
                is_active=True,
                task_domains_blocked=_blocked_in_task(conn, task_id),
            ),
        )
    for rule_id, _ in current:  # one active rule per pattern: the new decision replaces the old
        feedback_rows.retire_rule(conn, rule_id)
    rule_id = _new_id("rule")
    feedback_rows.store_rule(conn, rule_id, pattern, decision, args.reason)
    _rule_event(conn, rule_id, action, pattern, decision, args.reason)
    blocked = _blocked_in_task(conn, task_id)
    return FeedbackResult(
        event_id=_new_id("fb"),
        task_id=task_id,
        action=action,
        target_id=pattern,
        changed=True,
        outcome=f"{decision} rule on {pattern!r} in force for every task",
        rule=RuleEffect(
            rule_id=rule_id,
            domain_pattern=pattern,
            decision=decision,
            is_active=True,
            task_domains_blocked=blocked,
        ),
    )


def _require_fragment(conn, task_id: str, action: str, fragment_id: str) -> None:
    if not feedback_rows.has_fragment(conn, task_id, fragment_id):
        raise FeedbackError(
            f"{action}: no fragment {fragment_id!r} in task {task_id!r} "
            "(get_claim_evidence lists fragment ids)"
        )


def _signal(
    conn, task_id: str, fragment_id: str, signal: str, query_id: str | None, query: str | None
) -> RelevanceEffect:
    insert_signals(conn, [(task_id, fragment_id, signal, query_id, query)])
    stats = fragment_stats(conn, task_id, fragment_id)
    return RelevanceEffect(
        fragment_id=fragment_id,
        returns=stats.returns,
        positive=stats.positive,
        negative=stats.negative,
        multiplier=round(fb.relevance_multiplier(stats), 3),
    )


def _relevance(conn, task_id: str, action: str, args: fb.RelevanceArgs) -> FeedbackResult:
    _require_fragment(conn, task_id, action, args.fragment_id)
    query_id, query = task_id, args.query
    if args.claim_id:
        _require_claim(conn, task_id, action, args.claim_id)
        query_id = args.claim_id
        if not query:
            query = feedback_rows.claim_text(conn, task_id, args.claim_id)
    if not query:
        query = feedback_rows.task_query(conn, task_id)
    signal = "explicit_positive" if action == "fragment_useful" else "explicit_negative"
    effect = _signal(conn, task_id, args.fragment_id, signal, query_id, query)
    return FeedbackResult(
        event_id=_new_id("fb"),
        task_id=task_id,
        action=action,
        target_id=args.fragment_id,
        changed=True,
        outcome=f"{signal} signal recorded",
        relevance=effect,
    )


def _flag_irrelevant(conn, task_id: str, action: str, args: fb.FlagIrrelevantArgs) -> FeedbackResult:
    _require_fragment(conn, task_id, action, args.fragment_id)
    query = feedback_rows.task_query(conn, task_id)
    # a flag: kept as an event, and an explicit negative relevance signal for the task's question
    effect = _signal(conn, task_id, args.fragment_id, "explicit_negative", task_id, query)
    return FeedbackResult(
        event_id=_new_id("fb"),
        task_id=task_id,
        action=action,
        target_id=args.fragment_id,
        changed=True,
        outcome="fragment flagged irrelevant to the task's question",
        relevance=effect,
    )


def _flag_missing(conn, task_id: str, action: str, args: fb.FlagMissingArgs) -> FeedbackResult:
    if not feedback_rows.has_page(conn, task_id, args.page_id):
        raise FeedbackError(f"flag_missing: no page {args.page_id!r} in task {task_id!r}")
    return FeedbackResult(
        event_id=_new_id("fb"),
        task_id=task_id,
        action=action,
        target_id=args.page_id,
        changed=True,
        outcome="missing text recorded for review",
    )


def _add_note(conn, task_id: str, action: str, args: fb.NoteArgs) -> FeedbackResult:
    known = args.target_id == task_id or feedback_rows.names_a_row_of(conn, task_id, args.target_id)
    if not known:
        raise FeedbackError(
            f"add_note: {args.target_id!r} is not the task id nor a claim, edge, fragment or page "
            f"of task {task_id!r}"
        )
    return FeedbackResult(
        event_id=_new_id("fb"),
        task_id=task_id,
        action=action,
        target_id=args.target_id,
        changed=True,
        outcome="note recorded",
    )


_HANDLERS = {
    "edge_correct": _edge_correct,
    "claim_reject": _claim_reject,
    "claim_restore": _claim_restore,
    "domain_block": _domain_rule,
    "domain_unblock": _domain_rule,
    "domain_clear_override": _domain_rule,
    "fragment_useful": _relevance,
    "fragment_not_useful": _relevance,
    "flag_irrelevant": _flag_irrelevant,
    "flag_missing": _flag_missing,
    "add_note": _add_note,
}
assert set(_HANDLERS) == set(fb.ACTIONS)
