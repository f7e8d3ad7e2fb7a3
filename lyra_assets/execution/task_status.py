"""A task's row and its graph's generation, kept in step with the task's Dagster runs.

One mapping from a run's Dagster status to the task's status (``task_row_of``) and one function
that applies it to a task (``sync_task_status``): it also fails runs whose process died, drops the
staged rows of a run that died or was stopped before publishing, and finishes the Parquet files of
a run killed after it published. Two callers share it:

- ``task_status_sensor``, which the Dagster daemon (``lyra ui``, ``lyra daemon``) evaluates every
  30 s: a killed run's task reads ``failed`` and its generation is dropped without anyone asking;
- the CLI and the MCP server, before they show a task whose row reads running or queued: with no
  daemon (the local profile's ``lyra run``), that is where a killed run is noticed.

Before Dagster has a record of a run there is nothing to map, so the two moments the row changes
without one are here too: a run handed over (``record_handover``: queued for a detached process or
the cluster's queue, running in this process) and a run stopped before Dagster recorded it
(``record_stopped``). No other module writes a task's status.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from dagster import (
    DagsterEventType,
    DagsterInstance,
    DagsterRun,
    DagsterRunStatus,
    DefaultSensorStatus,
    ResourceParam,
    RunsFilter,
    SensorEvaluationContext,
    SkipReason,
    sensor,
)

from lyra_assets.execution.run_queue import settle_requests
from lyra_assets.execution.runs import (
    PID_TAG,
    STOP_TAG,
    TASK_TAG,
    active_runs,
    fail_dead_runs,
    failed_step,
    killed_message,
    task_runs,
)
from lyra_resources.store.generations import abandon_generation, finish_exports, generation_of
from lyra_resources.store.lyra_store import LyraStore, TaskRecord

_IN_PROGRESS = {
    DagsterRunStatus.QUEUED: "queued",
    DagsterRunStatus.NOT_STARTED: "queued",
    DagsterRunStatus.STARTING: "running",
    DagsterRunStatus.STARTED: "running",
    DagsterRunStatus.CANCELING: "running",
}


def _run_failure_message(instance: DagsterInstance, run_id: str) -> str | None:
    records = instance.get_records_for_run(run_id, of_type=DagsterEventType.RUN_FAILURE, limit=1).records
    return records[0].event_log_entry.message if records else None


def task_row_of(store: LyraStore, instance: DagsterInstance, run: DagsterRun) -> tuple[str, str | None]:
    """The task's status and error while ``run`` is its latest run: queued, running, completed,
    stopped or failed (with what went wrong). A run that published its graph and then ended
    without success (its process killed a moment later) leaves the task ``completed``, and the
    error says what happened."""
    if run.status in _IN_PROGRESS:
        return _IN_PROGRESS[run.status], None
    if run.status == DagsterRunStatus.SUCCESS:
        return "completed", None
    message = _run_failure_message(instance, run.run_id)
    generation = generation_of(store, run.run_id)
    if generation is not None and generation.published_at is not None:
        pid = run.tags.get(PID_TAG)
        killed = pid is not None and message == killed_message(run.run_id, pid)
        then = (
            "its process was killed before it recorded completion"
            if killed
            else f"then it ended {run.status.value}" + (f": {message}" if message else "")
        )
        return (
            "completed",
            f"run {run.run_id} published its graph at {generation.published_at:%Y-%m-%d %H:%M:%S} UTC; {then}",
        )
    if run.tags.get(STOP_TAG):
        return "stopped", "stopped by user"
    if run.status == DagsterRunStatus.CANCELED:
        return "stopped", "canceled in Dagster"
    failure = failed_step(instance, run.run_id)
    if failure is not None:
        return "failed", f"{failure.step}: {failure.message}"
    return "failed", message or f"run {run.run_id} ended {run.status.value}"


def record_handover(
    store: LyraStore, task_id: str, status: Literal["queued", "running"], run_id: str | None = None
) -> None:
    """The task's row the moment its run is handed over, before Dagster records the run: ``queued``
    (the cluster's run queue, or a detached process that will start it) or ``running`` (this
    process runs it now), with the run's id when it is known; ``sync_task_status`` follows from there."""
    store.update_task(task_id, status=status, error=None, **({"last_run_id": run_id} if run_id else {}))


def record_stopped(store: LyraStore, task_id: str) -> None:
    """The task's row after the user stopped its run (``lyra task stop``, Ctrl-C), whether or not
    Dagster had recorded the run yet."""
    store.update_task(task_id, status="stopped", error="stopped by user")


def sync_task_status(store: LyraStore, instance: DagsterInstance, task_id: str) -> TaskRecord:
    """The task's row and generations brought in line with its latest run; returns the row.

    A run whose process died is reported failed first. When the latest run ended without
    publishing and no step failed (it was killed or stopped), its staged rows are dropped; a run
    whose step failed keeps them, so a re-execution from failure can continue them. A run that
    published gets its Parquet generation written if its process died before writing it."""
    task = store.require_task(task_id)
    if task.status == "queued" and settle_requests(store, instance, task_id):
        return task  # asked of the cluster, its run not yet created by the daemon: it reads queued
    active_runs(instance, task_id)  # a run whose process died is reported failed here
    latest = task_runs(instance, task_id, limit=1)
    if not latest:
        return task
    run = latest[0].dagster_run
    if (
        task.status != "queued"  # a queued row names no run: its run is the task's latest
        and task.last_run_id
        and task.last_run_id != run.run_id
        and instance.get_run_by_id(task.last_run_id) is None
    ):
        return task  # the CLI names its run in the row a moment before Dagster records it (or never)
    status, error = task_row_of(store, instance, run)
    if run.status in (DagsterRunStatus.FAILURE, DagsterRunStatus.CANCELED) and (
        run.status == DagsterRunStatus.CANCELED or failed_step(instance, run.run_id) is None
    ):
        abandon_generation(store, task_id, run.run_id)
    finish_exports(store, task_id)
    if (task.status, task.last_run_id, task.error) != (status, run.run_id, error):
        store.update_task(task_id, status=status, last_run_id=run.run_id, error=error)
        task = store.require_task(task_id)
    return task


@sensor(
    name="task_status_sensor",
    minimum_interval_seconds=30,
    default_status=DefaultSensorStatus.RUNNING,
    description="Keeps each task's `tasks` row in step with its latest run (queued, running, then completed, failed "
    "with the error, or stopped) whoever started it: the CLI, MCP, the schedule, the UI. A run whose process died "
    "(`kill -9`) is marked failed and the rows it staged are dropped, without any reader looking at the task.",
)
def task_status_sensor(context: SensorEvaluationContext, store: ResourceParam[LyraStore]) -> SkipReason:
    instance = context.instance
    dead = fail_dead_runs(instance)
    since = float(context.cursor) if context.cursor else 0.0
    # A few seconds of overlap: a run updated in the same instant as the cursor is seen again, and
    # syncing a row that already says so is a no-op.
    records = instance.get_run_records(
        RunsFilter(updated_after=datetime.fromtimestamp(max(since - 5.0, 0.0), UTC)),
        order_by="update_timestamp",
        ascending=True,
        limit=200,
    )
    task_ids = list(
        dict.fromkeys(r.dagster_run.tags[TASK_TAG] for r in records if TASK_TAG in r.dagster_run.tags)
    )
    changes = []
    for task_id in task_ids:
        before = store.get_task(task_id)
        if before is None:  # deleted
            continue
        after = sync_task_status(store, instance, task_id)
        if (after.status, after.last_run_id, after.error) != (
            before.status,
            before.last_run_id,
            before.error,
        ):
            changes.append(f"{task_id} → {after.status} (run {after.last_run_id})")
    for record in records:
        stamp = record.update_timestamp
        since = max(since, (stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)).timestamp())
    context.update_cursor(str(since))
    for run_id in dead:
        context.log.info(f"run {run_id}: its process is gone; marked failed")
    for change in changes:
        context.log.info(change)
    return SkipReason("; ".join(changes) if changes else "no task's run changed state")
