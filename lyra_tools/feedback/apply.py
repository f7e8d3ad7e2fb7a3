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
from collections.abc import Mapping
from typing import Any

import duckdb

from lyra_core import feedback as fb
from lyra_core.domain_rules import pattern_matches
from lyra_resources.store import feedback_rows, request_ids
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.reviewed_graph.queries import require_task
from lyra_resources.store.reviewed_graph.records import ExploreError
from lyra_tools.feedback.actions import HANDLERS
from lyra_tools.feedback.results import FeedbackError, FeedbackResult

MAX_ARGS_BYTES = 16_000
GRAPH_ACTIONS = (*fb.EDGE_ACTIONS, *fb.CLAIM_ACTIONS, *fb.RULE_ACTIONS)  # what changes a report

log = logging.getLogger(__name__)


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
        handler = HANDLERS[action]
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
                if r["task_id"] != result.task_id and pattern_matches(result.target_id, r["domain"])
            }
        )
    for task_id in tasks:
        try:
            write_report(store, task_id)
        except OSError as exc:
            log.warning("the report of %s cannot be written after feedback: %s", task_id, exc)
