"""A task's status: its latest Dagster run and each asset's state in it, row counts, blocked
domains, NLI versions and feedback counts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from lyra_core.cells import cell_list
from lyra_core.clipping import clip
from lyra_core.domain_rules import rule_for
from lyra_resources.settings.loading import shared_settings
from lyra_resources.store.generations import graph_note, published_generation
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.reviewed_graph import counts
from lyra_resources.store.reviewed_graph.overlay import load_overlay
from lyra_resources.store.reviewed_graph.queries import require_task
from lyra_tools.mcp.models import AssetState, BlockedDomain, FeedbackCounts, RunState, TaskStatus


def _ts(value: float | None) -> datetime | None:
    return datetime.fromtimestamp(value) if value else None


def dagster_state(
    store: LyraStore, task_id: str, instance: Any = None
) -> tuple[RunState | None, list[AssetState]]:
    """Latest run of the task's partition and each asset's state in it, from the Dagster instance
    of the store's home (or the open ``instance`` given, which a long-lived server keeps); the task
    row takes the run's outcome first if its run ended unseen (a killed process)."""
    from lyra_assets.execution.runs import open_instance  # imports Dagster: only when status is asked for

    if instance is None:
        with open_instance(store.layout.root) as opened:
            return _dagster_state(store, opened, task_id)
    return _dagster_state(store, instance, task_id)


def _dagster_state(store: LyraStore, instance: Any, task_id: str) -> tuple[RunState | None, list[AssetState]]:
    from dagster import DagsterEventType

    from lyra_assets.execution import (  # imports the asset graph: only when status is asked for
        run_control,
        run_progress,
    )
    from lyra_assets.execution.runs import ACTIVE_STATUSES, task_runs

    types = {
        DagsterEventType.STEP_START: "running",
        DagsterEventType.STEP_SUCCESS: "done",
        DagsterEventType.STEP_FAILURE: "failed",
        DagsterEventType.STEP_SKIPPED: "skipped",
    }
    names = run_progress.asset_names()
    # the assets of a multi-asset share its step, whose key is not an asset's name
    step_of = {name: step for step, assets in run_progress.step_assets().items() for name in assets}
    if store.require_task(task_id).status in ("running", "queued"):
        run_control.sync_task_status(store, instance, task_id)  # a run whose process died reads failed
    records = task_runs(instance, task_id, limit=1)
    run_state, steps, active, materialized = None, {}, False, {}
    if records:
        record = records[0]
        run = record.dagster_run
        run_state = RunState(
            run_id=run.run_id,
            status=run.status.value,
            started_at=_ts(record.start_time),
            ended_at=_ts(record.end_time),
        )
        steps, materialized = _run_events(instance, run.run_id, types)
        active = run.status in ACTIVE_STATUSES
        published = published_generation(store, task_id)
        if published is not None and published.run_id != run.run_id and set(names) - set(materialized):
            # what the latest run did not reach was last materialized by the run whose graph stands
            materialized = {**_run_events(instance, published.run_id, {})[1], **materialized}
    assets = []
    for name in names:
        state = steps.get(step_of[name]) or ("pending" if run_state and active else "not_run")
        assets.append(AssetState(asset=name, state=state, last_materialized_at=materialized.get(name)))
    return run_state, assets


def _run_events(instance: Any, run_id: str, types: dict) -> tuple[dict[str, str], dict[str, datetime | None]]:
    """Each step's last state in the run (``types`` maps the step events read) and when each asset
    was materialized in it: one query of the run's event log."""
    from dagster import DagsterEventType

    steps: dict[str, str] = {}
    materialized: dict[str, datetime | None] = {}
    for ev in instance.get_records_for_run(
        run_id, of_type={*types, DagsterEventType.ASSET_MATERIALIZATION}
    ).records:
        event = ev.event_log_entry.dagster_event
        if event is None:
            continue
        if event.event_type == DagsterEventType.ASSET_MATERIALIZATION and event.asset_key is not None:
            materialized[event.asset_key.to_user_string()] = _ts(ev.event_log_entry.timestamp)
        elif event.step_key:
            steps[event.step_key] = types.get(event.event_type, steps.get(event.step_key))
    return steps, materialized


def default_nli_version() -> str:
    """The shipped (or configured) base model's version: active until an adapter is."""
    from lyra_resources.models.model_files import base_version, configured_nli_path  # only when asked

    return base_version(configured_nli_path(shared_settings().models))


def task_status(
    store: LyraStore, task_id: str, with_dagster: bool = True, instance: Any = None
) -> TaskStatus:
    """Status, run state per asset, row counts, blocked domains and the NLI version of a task."""
    from lyra_resources.models.model_files import configured_nli_path  # only when status is asked for
    from lyra_resources.models.nli_versions import active_version_id

    if with_dagster:
        with store.connect() as conn:
            require_task(conn, task_id)  # its message, before Dagster is asked about the task
    run_state, assets = dagster_state(store, task_id, instance) if with_dagster else (None, [])
    with store.connect() as conn:
        task = require_task(conn, task_id)
        overlay = load_overlay(conn, task_id)
        version = counts.edges_nli_version(conn, task_id)
        events, reviewed, corrected = counts.feedback_counts(conn, task_id)
        trust = counts.domain_trust(conn, task_id, list(overlay.blocked))
        policy_blocks = counts.verification_blocks(conn, task_id)
    rules = overlay.rules
    # what `lyra models list` marks active
    active_nli = active_version_id(store, configured_nli_path(shared_settings().models))
    published = published_generation(store, task_id)
    blocked = [
        BlockedDomain(
            domain=domain,
            blocked_at=rule.created_at,
            reason=f"blocked by a user rule on {rule.domain_pattern!r}: {rule.reason}",
            cause_ids=[rule.id],
            original_trust_level=trust.get(domain),
            can_restore=True,
            restore_via=f"feedback domain_clear_override or domain_unblock with domain_pattern '{rule.domain_pattern}'",
        )
        for domain, rule in sorted(overlay.blocked.items())
    ]
    for row in policy_blocks:
        domain, blocked_at, reason, causes, original, can_restore, restore_via = (
            row["domain"],
            row["blocked_at"],
            row["reason"],
            row["cause_ids"],
            row["original_trust_level"],
            row["can_restore"],
            row["restore_via"],
        )
        decided = rule_for(domain, rules)
        if domain in overlay.blocked or (decided is not None and decided.decision == "unblock"):
            continue  # a user rule decides this domain
        blocked.append(
            BlockedDomain(
                domain=domain,
                blocked_at=blocked_at,
                reason=reason or "blocked by source verification",
                cause_ids=cell_list(causes)[:10],
                original_trust_level=original,
                can_restore=bool(can_restore),
                restore_via=restore_via or "feedback domain_unblock",
            )
        )
    return TaskStatus(
        task_id=task_id,
        query=clip(task["query"], 300)[0],
        status=task["status"],
        error=clip(task["error"], 500)[0] or None,
        created_at=task["created_at"],
        updated_at=task["updated_at"],
        latest_run=run_state,
        assets=assets,
        row_counts=store.row_counts(task_id),
        blocked_domains=blocked[:20],
        active_nli_version=active_nli,
        edges_nli_version=version,
        graph_run_id=published.run_id if published else None,
        graph_note=graph_note(store, task_id),
        feedback=FeedbackCounts(
            events=events,
            reviewed_edges=reviewed,
            corrected_edges=corrected,
            rejected_claims=len(overlay.rejected),
        ),
    )
