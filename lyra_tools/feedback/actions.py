"""What each feedback action does, inside the transaction of its call (``lyra_tools.feedback.apply``):
validated against the task's ids, written through the store's feedback rows, answered with its effect."""

from __future__ import annotations

from lyra_core import feedback as fb
from lyra_resources.store import feedback_rows
from lyra_resources.store.relevance_signals import fragment_stats, insert_signals
from lyra_resources.store.reviewed_graph.overlay import load_claims, load_overlay
from lyra_tools.feedback.results import (
    EdgeEffect,
    FeedbackError,
    FeedbackResult,
    RelevanceEffect,
    RuleEffect,
    ScoreAfter,
    new_id,
)


def _result(
    task_id: str,
    action: str,
    target_id: str,
    *,
    changed: bool,
    outcome: str,
    edge: EdgeEffect | None = None,
    claim: ScoreAfter | None = None,
    rule: RuleEffect | None = None,
    relevance: RelevanceEffect | None = None,
) -> FeedbackResult:
    """A feedback call's answer under a new event id: its target, whether it changed anything, what
    it did, and its effect on an edge, a claim's score, a domain rule or a fragment's relevance."""
    return FeedbackResult(
        event_id=new_id("fb"),
        task_id=task_id,
        action=action,
        target_id=target_id,
        changed=changed,
        outcome=outcome,
        edge=edge,
        claim=claim,
        rule=rule,
        relevance=relevance,
    )


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
            correction_id = new_id("corr")
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
    return _result(
        task_id,
        action,
        args.edge_id,
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
    return _result(
        task_id,
        action,
        args.claim_id,
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
    return _result(
        task_id,
        action,
        args.claim_id,
        changed=bool(active),
        outcome="claim restored" if active else "claim was not rejected; nothing changed",
        claim=_score_after(conn, task_id, args.claim_id),
    )


def _rule_event(conn, rule_id: str | None, action: str, pattern: str, decision: str, reason: str) -> None:
    feedback_rows.record_rule_event(conn, new_id("dev"), rule_id, action, pattern, decision, reason)


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
        return _result(
            task_id,
            action,
            pattern,
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
        return _result(
            task_id,
            action,
            pattern,
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
    rule_id = new_id("rule")
    feedback_rows.store_rule(conn, rule_id, pattern, decision, args.reason)
    _rule_event(conn, rule_id, action, pattern, decision, args.reason)
    blocked = _blocked_in_task(conn, task_id)
    return _result(
        task_id,
        action,
        pattern,
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
    return _result(
        task_id, action, args.fragment_id, changed=True, outcome=f"{signal} signal recorded", relevance=effect
    )


def _flag_irrelevant(conn, task_id: str, action: str, args: fb.FlagIrrelevantArgs) -> FeedbackResult:
    _require_fragment(conn, task_id, action, args.fragment_id)
    query = feedback_rows.task_query(conn, task_id)
    # a flag: kept as an event, and an explicit negative relevance signal for the task's question
    effect = _signal(conn, task_id, args.fragment_id, "explicit_negative", task_id, query)
    return _result(
        task_id,
        action,
        args.fragment_id,
        changed=True,
        outcome="fragment flagged irrelevant to the task's question",
        relevance=effect,
    )


def _flag_missing(conn, task_id: str, action: str, args: fb.FlagMissingArgs) -> FeedbackResult:
    if not feedback_rows.has_page(conn, task_id, args.page_id):
        raise FeedbackError(f"flag_missing: no page {args.page_id!r} in task {task_id!r}")
    return _result(task_id, action, args.page_id, changed=True, outcome="missing text recorded for review")


def _add_note(conn, task_id: str, action: str, args: fb.NoteArgs) -> FeedbackResult:
    known = args.target_id == task_id or feedback_rows.names_a_row_of(conn, task_id, args.target_id)
    if not known:
        raise FeedbackError(
            f"add_note: {args.target_id!r} is not the task id nor a claim, edge, fragment or page "
            f"of task {task_id!r}"
        )
    return _result(task_id, action, args.target_id, changed=True, outcome="note recorded")


HANDLERS = {
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
assert set(HANDLERS) == set(fb.ACTIONS)
