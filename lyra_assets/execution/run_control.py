"""Run a task's assets through Dagster, in this process, against the shared Dagster instance.

The CLI never computes an asset itself: it adds the task's partition to the instance under the
Lyra home and executes the ``task_pipeline`` job for that partition, so every run, event and
materialization is recorded where ``dagster dev`` shows them. Job names, run tags, the instance and
a task's runs come from :mod:`lyra_assets.execution.runs`; this module runs jobs and follows their progress.
In the cluster profile a task's run is asked of the run queue instead (``queue_task``), and
Dagster's daemon (``lyra daemon``) creates and starts it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from dagster import DagsterRunStatus, RunsFilter
from pydantic import BaseModel

from lyra_assets.definitions import build_definitions
from lyra_assets.execution.interrupts import deferred_interrupts, interrupts_never_swallowed, run_interrupted
from lyra_assets.execution.run_progress import AssetProgress, ProgressWatcher, asset_names
from lyra_assets.execution.run_queue import request_task_run, settle_requests
from lyra_assets.execution.runs import (
    ACTIVE_STATUSES,
    PARTITION_TAG,
    PID_TAG,
    STOP_TAG,
    TASK_JOB,
    TASK_TAG,
    active_runs,
    cluster_settings,
    failed_step,
    open_instance,
    process_alive,
    register_partition,
    task_tags,
)
from lyra_assets.execution.task_status import record_handover, record_stopped, sync_task_status
from lyra_assets.partitions import TASKS_PARTITION
from lyra_assets.reuse import REBUILD_TAG
from lyra_resources.corpus.foreground import foreground
from lyra_resources.home import HomeLayout, resolve_home
from lyra_resources.settings.loading import LyraSettings, load_settings
from lyra_resources.settings.services import ClusterSettings
from lyra_resources.store import run_requests, task_lock
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.parquet_files import task_folder


class RunOutcome(BaseModel):
    task_id: str
    run_id: str
    success: bool
    status: str
    error: str | None = None
    interrupted: bool = False  # stopped by SIGINT (Ctrl-C, or `lyra task stop`): the task reads stopped
    assets: dict[str, AssetProgress]


def run_task(
    task_id: str,
    home: str | os.PathLike[str] | None = None,
    on_progress: Callable[[dict[str, AssetProgress]], None] | None = None,
    *,
    rebuild: bool = False,
    settings: LyraSettings | None = None,
) -> RunOutcome:
    """Materialize every asset of one task; the task row records running → completed/failed/stopped.
    An asset whose code and inputs are those its rows were built from keeps them (``lyra_assets.reuse``)
    unless ``rebuild``. ``settings``: the caller's (default: the user's file, read once here), handed
    to the store, the instance and the run's resources."""
    layout = HomeLayout(root=resolve_home(home))
    # `lyra task delete` waits for the whole run, not only Dagster's part; a background embedding waits for it
    with task_lock.running(layout, task_id), foreground(layout):
        return _run_task(layout, task_id, on_progress, rebuild, settings or load_settings())


def _run_task(
    layout: HomeLayout,
    task_id: str,
    on_progress: Callable[[dict[str, AssetProgress]], None] | None,
    rebuild: bool,
    settings: LyraSettings,
) -> RunOutcome:
    cluster = settings.cluster.effective()
    store = LyraStore.for_settings(layout.root, cluster)
    task = store.require_task(task_id)
    progress = {name: AssetProgress(asset=name) for name in asset_names()}
    run_id = str(uuid.uuid4())

    with deferred_interrupts() as interrupt, open_instance(layout.root, cluster) as instance:
        # Loaded inside the instance's context: definitions read the instance's state storage.
        job = build_definitions(layout.root, settings).resolve_job_def(TASK_JOB)
        register_partition(instance, task_id)
        if active_runs(instance, task_id):
            raise RuntimeError(
                f"task {task_id} already has a run in progress (see `lyra task status {task_id}`)"
            )
        record_handover(store, task_id, "running", run_id)
        watcher = ProgressWatcher(instance, run_id, progress, on_progress)
        watcher.start()
        forwarder = interrupt.forward_until(watcher.finished)
        interrupted, success = interrupt.received.is_set(), False
        try:
            if interrupted:  # Ctrl-C while the run was prepared: it never starts
                raise KeyboardInterrupt
            result = job.execute_in_process(
                instance=instance,
                partition_key=task_id,
                run_id=run_id,
                raise_on_error=False,
                tags={
                    **task_tags(task_id, task.query),
                    PID_TAG: str(os.getpid()),
                    **({REBUILD_TAG: "1"} if rebuild else {}),
                },
                # Dagster's console logger would interleave with the progress display.
                run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
            )
            success = result.success
        except KeyboardInterrupt:
            interrupted, success = True, False
        finally:
            watcher.finished.set()
            watcher.join(timeout=5)
            forwarder.join(timeout=1)
        run = instance.get_run_by_id(run_id)
        # Dagster turns a SIGINT inside a step into that step's failure rather than a KeyboardInterrupt
        interrupted = interrupted or (run is not None and not success and run_interrupted(instance, run_id))
        if interrupted and run is not None:  # Ctrl-C in the terminal: the user stopped it
            instance.add_run_tags(run_id, {STOP_TAG: "1"})
            if run.status in ACTIVE_STATUSES:
                instance.report_run_canceled(run, message="interrupted")
            run = instance.get_run_by_id(run_id)
        status = run.status.value if run else "UNKNOWN"
        if run is None:  # interrupted before Dagster recorded the run
            record_stopped(store, task_id)
        else:
            sync_task_status(store, instance, task_id)  # the task row says what the run record says

    error = next((p.error for p in progress.values() if p.error), None)
    return RunOutcome(
        task_id=task_id,
        run_id=run_id,
        success=success,
        status=status,
        error=error,
        interrupted=interrupted,
        assets=progress,
    )


class QueuedRun(BaseModel):
    """A task run asked of the cluster: its request (``run_requests``) until the daemon creates the run."""

    task_id: str
    request_id: str
    status: str = "queued"


def queue_task(
    task_id: str, home: str | os.PathLike[str] | None = None, cluster: ClusterSettings | None = None
) -> QueuedRun:
    """Ask the cluster for a run of the task and return at once: the task row reads queued, and
    Dagster's daemon creates the run (``run_queue.task_run_requests_sensor``) and starts it when the
    run queue allows; ``sync_task_status`` follows the run from there."""
    layout = HomeLayout(root=resolve_home(home))
    cluster = cluster or cluster_settings()
    store = LyraStore.for_settings(layout.root, cluster)
    store.require_task(task_id)
    with open_instance(layout.root, cluster) as instance:
        register_partition(instance, task_id)
        if active_runs(instance, task_id) or settle_requests(store, instance, task_id):
            raise RuntimeError(
                f"task {task_id} already has a run in progress (see `lyra task status {task_id}`)"
            )
    record_handover(store, task_id, "queued")
    return QueuedRun(task_id=task_id, request_id=request_task_run(store, task_id))


class JobOutcome(BaseModel):
    job: str
    run_id: str
    success: bool
    error: str | None = None


def run_job(
    job_name: str,
    run_config: dict,
    home: str | os.PathLike[str] | None = None,
    partition_key: str | None = None,
    settings: LyraSettings | None = None,
) -> JobOutcome:
    """Run a job other than the task pipeline (model training, re-scoring one task's partition)
    in this process on the home's instance, logging to the console as it goes; ``settings`` as
    ``run_task`` takes them."""
    layout = HomeLayout(root=resolve_home(home))
    settings = settings or load_settings()
    cluster = settings.cluster.effective()
    run_id = str(uuid.uuid4())
    tags = {PID_TAG: str(os.getpid())}
    if partition_key:  # a task's partition: the run says which task, and its question
        task = LyraStore.for_settings(layout.root, cluster).get_task(partition_key)
        tags.update(task_tags(partition_key, task.query if task else None))
    with open_instance(layout.root, cluster) as instance:
        job = build_definitions(layout.root, settings).resolve_job_def(job_name)
        if partition_key:
            register_partition(instance, partition_key)
        with interrupts_never_swallowed():  # an interrupt inside a weakref callback still stops the run
            result = job.execute_in_process(
                instance=instance,
                run_id=run_id,
                raise_on_error=False,
                tags=tags,
                partition_key=partition_key,
                run_config={**run_config, "loggers": {"console": {"config": {"log_level": "INFO"}}}},
            )
        error = None
        if not result.success:
            failure = failed_step(instance, run_id)
            error = failure.message if failure else "run failed"
    return JobOutcome(job=job_name, run_id=run_id, success=result.success, error=error)


def stop_task(
    task_id: str,
    home: str | os.PathLike[str] | None = None,
    wait_s: float = 15.0,
    cluster: ClusterSettings | None = None,
) -> list[str]:
    """Stop the task's active runs (interrupt the process running each, or cancel its run record)
    and withdraw a run it asked of the cluster that Dagster has not yet created, and mark the task
    stopped; returns the runs stopped and the requests withdrawn. With none in progress nothing changes:
    a failed task keeps its failure reason, a completed one its status. A run that finished its last
    step before the interrupt reached it has not been stopped: it is not returned and its task reads
    completed. ``cluster``: the caller's effective cluster settings (default: the user's, read now)."""
    cluster = cluster or cluster_settings()
    store = LyraStore.for_settings(resolve_home(home), cluster)
    store.require_task(task_id)
    stopped: list[str] = []
    finished = False
    with open_instance(home, cluster) as instance:
        # a run asked of the cluster is withdrawn while Dagster has not created it, else stopped below
        settle_requests(store, instance, task_id)
        withdrawn = run_requests.withdraw(store, task_id)
        for record in active_runs(instance, task_id):
            run = record.dagster_run
            # recorded first, so the interrupted process itself reports `stopped`, not `failed`
            instance.add_run_tags(run.run_id, {STOP_TAG: "1"})
            pid = run.tags.get(PID_TAG)
            if pid and process_alive(int(pid)):
                os.kill(int(pid), signal.SIGINT)  # in-process runs turn SIGINT into a clean failure
                deadline = time.monotonic() + wait_s
                while time.monotonic() < deadline and process_alive(int(pid)):
                    time.sleep(0.2)
            elif not pid:  # queued, or launched by the Dagster daemon: its coordinator stops it
                with contextlib.suppress(Exception):
                    instance.run_coordinator.cancel_run(run.run_id)
            current = instance.get_run_by_id(run.run_id)
            if current and current.status == DagsterRunStatus.SUCCESS:
                finished = True  # it ended as the interrupt was sent: its graph is complete and published
                continue
            if current and current.status in ACTIVE_STATUSES:
                instance.report_run_canceled(current, message="stopped with `lyra task stop`")
            stopped.append(run.run_id)
        stopped.extend(withdrawn)
        if stopped:
            record_stopped(store, task_id)
        elif finished:
            sync_task_status(store, instance, task_id)
    return stopped


class DeletedTask(BaseModel):
    """What ``lyra task delete`` removed."""

    task_id: str
    rows: dict[str, int]
    runs: list[str]
    files: list[str]


def delete_task(
    task_id: str, home: str | os.PathLike[str] | None = None, cluster: ClusterSettings | None = None
) -> DeletedTask:
    """Remove the task's rows, Parquet files, reports, verify results and run log, its Dagster runs
    (their event logs and captured step output) and its partition. Feedback tables are untouched:
    corrections and domain rules hold for every task. ``cluster`` as ``stop_task`` takes it."""
    layout = HomeLayout(root=resolve_home(home))
    cluster = cluster or cluster_settings()
    store = LyraStore.for_settings(layout.root, cluster)
    store.require_task(task_id)
    with task_lock.not_running(layout, task_id), open_instance(layout.root, cluster) as instance:
        if active_runs(instance, task_id):
            raise RuntimeError(f"task {task_id} is running; stop it first with `lyra task stop {task_id}`")
        parquet = [p for p in (task_folder(layout.parquet, task_id),) if p.exists()]
        rows = store.delete_task(task_id)
        files = layout.task_outputs(task_id)
        for path in files:
            path.unlink(missing_ok=True)
        runs = list(
            dict.fromkeys(  # the task's runs, and any run of its partition started from the UI
                record.dagster_run.run_id
                for tags in ({TASK_TAG: task_id}, {PARTITION_TAG: task_id})
                for record in instance.get_run_records(RunsFilter(tags=tags))
            )
        )
        shard = getattr(
            instance.event_log_storage, "path_for_shard", None
        )  # the local profile's SQLite file per run
        for run_id in runs:
            instance.delete_run(run_id)
            instance.compute_log_manager.delete_logs(prefix=[run_id])
            if shard is not None:  # emptied by delete_run, but its free pages may still hold the run's events
                for path in (Path(shard(run_id) + suffix) for suffix in ("", "-wal", "-shm")):
                    path.unlink(missing_ok=True)
        if instance.has_dynamic_partition(TASKS_PARTITION, task_id):
            instance.delete_dynamic_partition(TASKS_PARTITION, task_id)
    return DeletedTask(task_id=task_id, rows=rows, runs=runs, files=[str(p) for p in [*parquet, *files]])
