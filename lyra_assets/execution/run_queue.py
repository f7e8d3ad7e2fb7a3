"""A task's run asked of the cluster's run queue instead of executed in this process.

In the cluster profile the home's instance has a ``QueuedRunCoordinator`` (``lyra_assets.execution.runs``).
The process that asks for a run (``lyra task run``, MCP ``create_task``) records a request in the
store (``run_requests``) and returns at once. ``task_run_requests_sensor``, evaluated by Dagster's
daemon (``lyra daemon``) every few seconds, turns each request into a ``RunRequest`` for the task's
partition; the daemon creates the run from its own code location and queues it, and its queued-run
coordinator starts it within the limits (one run per task, ``max_concurrent_runs`` in all).

The request's id is the run's run key (Dagster creates one run per key, so a request evaluated twice
starts one run) and its ``REQUEST_TAG``; the request is removed once its run exists (``settle_requests``).
"""

from __future__ import annotations

from dagster import (
    DagsterInstance,
    DefaultSensorStatus,
    ResourceParam,
    RunRequest,
    RunsFilter,
    SensorEvaluationContext,
    SkipReason,
    sensor,
)

from lyra_assets.execution.runs import STORE_TAG, TASK_JOB, is_cluster, task_tags
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.store import run_requests
from lyra_resources.store.lyra_store import LyraStore

REQUEST_TAG = "lyra/run_request"  # the run request (``run_requests``) a queued run was created for


def run_of_request(instance: DagsterInstance, request_id: str) -> str | None:
    """The id of the run Dagster created for the request, or None while there is none."""
    records = instance.get_run_records(RunsFilter(tags={REQUEST_TAG: request_id}), limit=1)
    return records[0].dagster_run.run_id if records else None


def settle_requests(
    store: LyraStore, instance: DagsterInstance, task_id: str | None = None
) -> list[run_requests.RunRequestRow]:
    """Remove the requests whose run Dagster has created; returns those still waiting for one."""
    return run_requests.settle(
        store, lambda request_id: run_of_request(instance, request_id) is not None, task_id
    )


def request_task_run(store: LyraStore, task_id: str) -> str:
    """Ask the cluster for a run of the task's pipeline; returns the request's id. The caller has
    registered the task's partition and checked that no run of it is in progress."""
    return run_requests.add(store, task_id)


@sensor(
    name="task_run_requests_sensor",
    job_name=TASK_JOB,
    minimum_interval_seconds=1,  # the daemon evaluates sensors every 5 s at most
    default_status=DefaultSensorStatus.RUNNING,
    description="Starts the task runs asked of the cluster (`lyra task run`, MCP `create_task` in the cluster "
    "profile): one `task_pipeline` run of the task's partition per row of `run_requests`, queued within the "
    "run queue's limits; a request's row is removed once its run exists.",
)
def task_run_requests_sensor(
    context: SensorEvaluationContext, store: ResourceParam[LyraStore], settings: ResourceParam[LyraSettings]
) -> list[RunRequest] | SkipReason:
    if not is_cluster(settings.cluster.effective()):  # no queue to ask: the store is left alone
        return SkipReason("the local profile runs each task in the command that starts it")
    requests = []
    for request in settle_requests(store, context.instance):
        task = store.get_task(request.task_id)
        if task is None:  # deleted since; its requests went with it
            continue
        requests.append(
            RunRequest(
                run_key=request.request_id,
                partition_key=task.id,
                tags={
                    **task_tags(task.id, task.query),
                    STORE_TAG: store.where,
                    REQUEST_TAG: request.request_id,
                },
            )
        )
    return requests or SkipReason("no task run asked for")
