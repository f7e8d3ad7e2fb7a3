"""Scheduled re-runs of watched tasks, and the sensor that keeps their `tasks` rows right.

A task is *watched* when its options name `watch_every` (`lyra task watch ID --every 1d`,
`lyra run … --watch 1d`, or MCP `create_task` options). Every hour `watched_tasks_schedule`
reads the watched tasks from the store and requests a `task_pipeline` run of each one whose
interval has passed since its latest run started, unless a run of it is still in progress. The
run replaces the task's rows the way `lyra task run` does; feedback tables are not per-task
and no asset writes them, so every correction stays in force.

Runs the Dagster daemon launches do not go through the CLI's runner; `task_status_sensor`
(lyra_assets.execution.task_status) keeps their task's row (status, last run, error) as it does for every
task run. Both start RUNNING under `lyra ui` / `dagster dev` and can be turned off in the UI.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from dagster import (
    DagsterInstance,
    DefaultScheduleStatus,
    ResourceParam,
    RunRecord,
    RunRequest,
    RunsFilter,
    ScheduleEvaluationContext,
    SkipReason,
    schedule,
)
from pydantic import BaseModel

from lyra_assets.execution.runs import (
    ACTIVE_STATUSES,
    PARTITION_TAG,
    TASK_JOB,
    TASK_TAG,
    TRIGGER_TAG,
    WATCH_TAG,
    WATCH_TRIGGER,
    active_runs,
    register_partition,
    task_tags,
)
from lyra_core.tasks import parse_interval
from lyra_resources.store.lyra_store import LyraStore, TaskRecord
from lyra_resources.task_input import STORED_LABELS, TaskInputError, check_task_input

WATCH_CRON = "0 * * * *"
# Runs start a little after the tick that requested them: without some slack a task watched
# every 1d, last started at 10:00:40, would miss the next day's 10:00 tick and run at 11:00.
GRACE = timedelta(minutes=5)


class WatchDecision(BaseModel):
    task_id: str
    watch_every: str
    due: bool
    reason: str
    last_started: datetime | None = None


def _epoch(value: datetime) -> float:
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()


def _when(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC")


def runs_in_progress(instance: DagsterInstance, task_id: str) -> list[RunRecord]:
    """Runs of the task's partition not yet finished: the CLI's and MCP's (tagged with the task;
    a run whose process died is marked failed, not counted) and any other run of the partition
    (the schedule's, or one launched from the UI)."""
    active = {r.dagster_run.run_id: r for r in active_runs(instance, task_id)}
    others = instance.get_run_records(
        RunsFilter(tags={PARTITION_TAG: task_id}, statuses=list(ACTIVE_STATUSES)), limit=20
    )
    for record in others:
        if TASK_TAG not in record.dagster_run.tags:  # tagged runs were judged by active_runs
            active.setdefault(record.dagster_run.run_id, record)
    return list(active.values())


def last_run_start(instance: DagsterInstance, task_id: str) -> float | None:
    """When the task's latest run started (or was created, if it never started), as epoch seconds."""
    latest: float | None = None
    for tags in ({TASK_TAG: task_id}, {PARTITION_TAG: task_id}):
        for record in instance.get_run_records(RunsFilter(tags=tags), limit=1):
            started = record.start_time or _epoch(record.create_timestamp)
            latest = started if latest is None else max(latest, started)
    return latest


def watch_decision(task: TaskRecord, instance: DagsterInstance, now: datetime) -> WatchDecision | None:
    """Whether a watched task is due for a run at ``now``, and why; ``None`` for an unwatched task."""
    every = task.options.get("watch_every")
    if not every:
        return None
    decide = lambda due, reason, started=None: WatchDecision(  # noqa: E731
        task_id=task.id,
        watch_every=every,
        due=due,
        reason=reason,
        last_started=datetime.fromtimestamp(started, UTC) if started is not None else None,
    )
    try:
        interval = parse_interval(every)
    except ValueError as exc:
        return decide(False, f"not re-run: {exc}")
    in_progress = runs_in_progress(instance, task.id)
    if in_progress:
        return decide(False, f"run {in_progress[0].dagster_run.run_id} is still in progress")
    started = last_run_start(instance, task.id)
    if started is None:
        return decide(True, f"watched every {every} and never run")
    next_run = started + interval.total_seconds()
    if _epoch(now) + GRACE.total_seconds() < next_run:
        return decide(False, f"last run started {_when(started)}; next due after {_when(next_run)}", started)
    return decide(True, f"watched every {every}; last run started {_when(started)}", started)


def checked_input(decision: WatchDecision, task: TaskRecord, home: str) -> WatchDecision:
    """A due task whose input no longer passes the check `lyra task run` makes (its corpus gone, no
    source reachable) is not re-run: a run would only fail and leave its partition red."""
    try:
        check_task_input(task.query, task.options, home, labels=STORED_LABELS)
    except TaskInputError as exc:
        return decision.model_copy(update={"due": False, "reason": f"not re-run: {exc}"})
    return decision


@schedule(
    cron_schedule=WATCH_CRON,
    job_name=TASK_JOB,
    name="watched_tasks_schedule",
    default_status=DefaultScheduleStatus.RUNNING,
    description="Every hour, re-runs each watched task (`lyra task watch ID --every 1d`) whose interval has "
    "passed since its latest run started, unless a run of it is in progress. New papers from the live sources "
    "enter the graph; feedback (corrections, rejections, domain rules, relevance signals) is kept.",
)
def watched_tasks_schedule(
    context: ScheduleEvaluationContext, store: ResourceParam[LyraStore]
) -> Iterator[RunRequest | SkipReason]:
    now = context.scheduled_execution_time or datetime.now(UTC)
    tick = now.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ")
    tasks = {task.id: task for task in store.list_tasks()}
    decisions = [
        checked_input(d, tasks[d.task_id], store.home) if d.due else d
        for task in tasks.values()
        if (d := watch_decision(task, context.instance, now))
    ]
    due = [d for d in decisions if d.due]
    for decision in decisions:
        context.log.info(f"{decision.task_id}: {'run' if decision.due else 'skip'}: {decision.reason}")
    if not due:
        if not decisions:
            yield SkipReason("no task is watched (`lyra task watch ID --every 1d`)")
        else:
            yield SkipReason(
                "no watched task is due: " + "; ".join(f"{d.task_id}: {d.reason}" for d in decisions)
            )
        return
    for decision in due:
        # The partition normally exists (the CLI and MCP add it); a task made some other way gets it here.
        register_partition(context.instance, decision.task_id)
        yield RunRequest(
            partition_key=decision.task_id,
            run_key=f"{decision.task_id}@{tick}",  # one run per task per tick, even if the tick is retried
            tags={
                **task_tags(decision.task_id, tasks[decision.task_id].query),
                TRIGGER_TAG: WATCH_TRIGGER,
                WATCH_TAG: decision.watch_every,
            },
        )
