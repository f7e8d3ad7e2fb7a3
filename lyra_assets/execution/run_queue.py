"""Submitting a task's run to the cluster's run queue instead of executing it in this process.

In the cluster profile the home's instance has a ``QueuedRunCoordinator`` (``lyra_assets.execution.runs``):
a submitted run waits QUEUED until Dagster's daemon (``lyra daemon``) dequeues it, within the
limits (one run per task, ``max_concurrent_runs`` in all), and launches it through the code server
of its workspace. A run is created here as ``dagster job launch`` and the UI's launch create one:
the job's snapshot, execution plan and origin taken from a code location, then ``submit_run``.

The code location is loaded in this process (the caller already imports Lyra's definitions), under
the name the daemon's workspace gives it (``workspace.yaml``: the module ``lyra_assets.repository``),
so the daemon finds the run's location by that name and executes it from its own code server.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from dagster import DagsterInstance, DagsterRun

# Loading a code location and creating a run from it in this process, as `dagster job launch` does,
# has no public API (the public ways go through a running webserver or a `dagster` subprocess).
from dagster._core.definitions.selector import JobSubsetSelector
from dagster._core.remote_origin import InProcessCodeLocationOrigin
from dagster._core.types.loadable_target_origin import LoadableTargetOrigin
from dagster._core.workspace.context import WorkspaceProcessContext
from dagster._core.workspace.load_target import InProcessWorkspaceLoadTarget

from lyra_assets.execution.runs import PARTITION_TAG, STORE_TAG, TASK_JOB, task_tags
from lyra_resources.home import REPO_ROOT
from lyra_resources.store.lyra_store import LyraStore, TaskRecord

# The module `dagster dev` and `dagster-daemon` load (workspace.yaml); with no location_name given,
# Dagster names the code location after it, and the daemon looks a queued run's location up by name.
CODE_MODULE = "lyra_assets.repository"
CODE_LOCATION = CODE_MODULE


def _load_target() -> InProcessWorkspaceLoadTarget:
    origin = LoadableTargetOrigin(
        executable_path=sys.executable, module_name=CODE_MODULE, working_directory=str(REPO_ROOT)
    )
    return InProcessWorkspaceLoadTarget(InProcessCodeLocationOrigin(origin, location_name=CODE_LOCATION))


def submit_run(
    instance: DagsterInstance,
    job_name: str,
    tags: Mapping[str, str],
    partition_key: str | None = None,
    run_config: Mapping[str, object] | None = None,
) -> DagsterRun:
    """Create a run of ``job_name`` (of ``partition_key``, when given) and submit it to the instance's
    run coordinator; returns the run as submitted (QUEUED under a ``QueuedRunCoordinator``)."""
    run_tags = dict(tags)
    if partition_key is not None:
        run_tags[PARTITION_TAG] = partition_key  # how Dagster says which partition a run materializes
    with WorkspaceProcessContext(instance, _load_target()) as context:
        workspace = context.create_request_context()
        location = workspace.get_code_location(CODE_LOCATION)
        (repository,) = location.get_repositories().values()
        selector = JobSubsetSelector(
            location_name=location.name, repository_name=repository.name, job_name=job_name, op_selection=None
        )
        job = location.get_job(selector)
        config = dict(run_config or {})
        plan = location.get_execution_plan(
            job, config, step_keys_to_execute=None, known_state=None, instance=instance
        )
        run = instance.create_run(
            job_name=job_name,
            run_id=None,
            run_config=config,
            resolved_op_selection=None,
            step_keys_to_execute=plan.execution_plan_snapshot.step_keys_to_execute,
            op_selection=None,
            status=None,
            root_run_id=None,
            parent_run_id=None,
            tags={**job.tags, **run_tags},
            job_snapshot=job.job_snapshot,
            execution_plan_snapshot=plan.execution_plan_snapshot,
            parent_job_snapshot=job.parent_job_snapshot,
            remote_job_origin=job.get_remote_origin(),
            job_code_origin=job.get_python_origin(),
            asset_selection=None,
            asset_check_selection=None,
            asset_graph=repository.asset_graph,
        )
        return instance.submit_run(run.run_id, workspace)


def submit_task_run(instance: DagsterInstance, store: LyraStore, task: TaskRecord) -> DagsterRun:
    """Submit a run of the task pipeline for the task's partition (registered by the caller), tagged
    with the task as every run of a task is, and with ``store`` (where the task is), which the run's
    step processes check they write to (``lyra_assets.graph.publish.TaskStore``)."""
    return submit_run(
        instance, TASK_JOB, {**task_tags(task.id, task.query), STORE_TAG: store.where}, partition_key=task.id
    )
