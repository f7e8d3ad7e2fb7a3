"""The cluster profile's workers: a task run's steps go through a real Redis to real `lyra worker`
processes, and the local profile keeps running every step in the run's own process."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from dagster import DagsterEventType, DagsterInstance, execute_job, materialize
from dagster._core.definitions.reconstruct import ReconstructableRepository
from typer.testing import CliRunner

from bench.local_servers import lyra_workers
from fixtures.tables import held_until_met
from lyra_assets.definitions import (
    TASK_RUN_ASSETS,
    build_definitions,
    build_resources,
    task_jobs,
    task_pipeline,
)
from lyra_assets.execution import run_control
from lyra_assets.execution.runs import (
    PARTITION_TAG,
    RESCORING_JOB,
    STORE_TAG,
    TASK_JOB,
    open_instance,
    register_partition,
    task_tags,
)
from lyra_assets.execution.step_workers import WORKER_CONFIG_MODULE, write_worker_config
from lyra_assets.graph.publish import store_lock_waits
from lyra_assets.models.adapter import nli_rescoring
from lyra_assets.partitions import TASKS_PARTITION
from lyra_resources.home import REPO_ROOT, HomeLayout
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.settings.pipeline import SettingsError
from lyra_resources.settings.services import ClusterSettings
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli import app

BROKER = "redis://broker.example:6379/0"


def cluster_settings(broker: str = BROKER) -> LyraSettings:
    # the definitions hand the store its Postgres URL: a cluster profile without one is refused there
    store = "postgresql://lyra@127.0.0.1:1/lyra"
    return LyraSettings(cluster=ClusterSettings(profile="cluster", redis_url=broker, postgres_url=store))


@pytest.fixture
def no_cluster_env(monkeypatch):
    for name in ("LYRA_PROFILE", "LYRA_REDIS_URL", "LYRA_POSTGRES_URL", "LYRA_STORE"):
        monkeypatch.delenv(name, raising=False)


def test_the_local_profile_keeps_the_jobs_as_defined(lyra_home, no_cluster_env):
    assert task_jobs(None) == [task_pipeline, nli_rescoring]
    defs = build_definitions(lyra_home, LyraSettings())
    for name in (TASK_JOB, RESCORING_JOB):
        assert defs.resolve_job_def(name).executor_def.name == "multi_or_in_process_executor"


def test_the_cluster_profile_runs_the_task_jobs_on_celery_through_its_broker(lyra_home, no_cluster_env):
    defs = build_definitions(lyra_home, cluster_settings())
    for name in (TASK_JOB, RESCORING_JOB):
        executor = defs.resolve_job_def(name).executor_def
        assert executor.name == "celery"
        config = executor.config_schema.resolve_config({}).value[
            "config"
        ]  # `configured`: the broker is built in
        assert config["broker"] == config["backend"] == BROKER
    # training runs stay where they are started; the task jobs keep their selection and partitions
    assert defs.resolve_job_def("nli_model_training").executor_def.name == "multi_or_in_process_executor"
    assert defs.resolve_job_def(TASK_JOB).partitions_def.name == TASKS_PARTITION
    local = build_definitions(lyra_home, LyraSettings())
    assert set(defs.resolve_job_def(TASK_JOB).asset_layer.executable_asset_keys) == set(
        local.resolve_job_def(TASK_JOB).asset_layer.executable_asset_keys
    )


def test_a_cluster_profile_without_a_broker_is_refused_in_one_line(lyra_home, monkeypatch, no_cluster_env):
    with pytest.raises(SettingsError, match="needs a Redis broker") as refused:
        build_definitions(lyra_home, cluster_settings(broker=""))
    assert "\n" not in str(refused.value) and "LYRA_REDIS_URL" in str(refused.value)

    monkeypatch.setenv("LYRA_PROFILE", "cluster")  # the environment chooses the profile: the same refusal
    result = subprocess.run(
        [sys.executable, "-m", "lyra_tools.cli", "worker", "--home", str(lyra_home)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert result.stderr.strip().startswith("error: the cluster profile needs a Redis broker")
    assert len(result.stderr.strip().splitlines()) == 1


def test_lyra_worker_refuses_the_local_profile(lyra_home, no_cluster_env):
    result = CliRunner().invoke(app, ["worker", "--home", str(lyra_home)])
    assert result.exit_code == 1 and "serves the cluster profile" in result.output


def test_workers_read_the_broker_the_executor_sends_steps_to(lyra_home):
    folder = write_worker_config(HomeLayout(root=lyra_home), BROKER)
    assert (folder / f"{WORKER_CONFIG_MODULE}.py").is_file()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(REPO_ROOT)])}
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "from dagster_celery.app import app; c = app.conf; "
            "print(c.broker_url, c.result_backend, c.worker_prefetch_multiplier)",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.split()
    assert shown == [BROKER, BROKER, "1"]


@pytest.mark.duckdb_file
def test_a_step_that_waited_for_the_database_says_so_in_the_event_log(lyra_home, small_corpus):
    store = LyraStore.at(lyra_home)
    task = store.create_task(
        "Does vitamin D supplementation reduce fracture risk?", {"corpus": [str(small_corpus)]}
    )
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task.id])
        with held_until_met(store.layout.database, 1.0):  # another worker's step has the file
            result = materialize(
                TASK_RUN_ASSETS,
                partition_key=task.id,
                resources=build_resources(lyra_home),
                instance=instance,
                selection=["papers", "claim_scope"],
            )
        assert result.success
        waits = store_lock_waits(instance, result.run_id)
        unhindered = materialize(
            TASK_RUN_ASSETS,
            partition_key=task.id,
            resources=build_resources(lyra_home),
            instance=instance,
            selection=["papers", "claim_scope"],
        )
        assert store_lock_waits(instance, unhindered.run_id).conflicts == 0
    assert waits.conflicts > 0 and waits.gave_up == 0 and waits.waited_s > 0.5


def test_a_step_in_a_process_with_another_store_refuses_to_run(lyra_home, small_corpus):
    """A worker started with other settings than the process that queued the run would write the
    task's rows where nobody reads them: its steps fail at once, saying why."""
    store = LyraStore.at(lyra_home)
    task = store.create_task(
        "Does vitamin D supplementation reduce fracture risk?", {"corpus": [str(small_corpus)]}
    )
    elsewhere = "Postgres db.example:5432/lyra (schema lyra)"
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task.id])
        refused = materialize(
            TASK_RUN_ASSETS,
            partition_key=task.id,
            resources=build_resources(lyra_home),
            instance=instance,
            selection=["papers", "claim_scope"],
            tags={STORE_TAG: elsewhere},
            raise_on_error=False,
        )
        assert not refused.success
        message = " ".join(str(e.event_specific_data) for e in refused.all_events if e.is_failure)
        assert elsewhere in message and store.where in message and "lyra worker" in message
        assert store.row_counts(task.id)["papers"] == 0
        same = materialize(
            TASK_RUN_ASSETS,
            partition_key=task.id,
            resources=build_resources(lyra_home),
            instance=instance,
            selection=["papers", "claim_scope"],
            tags={STORE_TAG: store.where},
        )
        assert same.success and store.row_counts(task.id)["papers"] > 0


# -- a task run through Redis and two real workers ---------------------------------------------------


@pytest.mark.slow
def test_a_task_run_spread_over_two_workers_gives_the_local_run_s_rows(
    lyra_home, small_corpus, redis_url, postgres_url, monkeypatch, tmp_path, no_cluster_env
):
    store = LyraStore.at(lyra_home)
    task = store.create_task(
        "Does vitamin D supplementation reduce fracture risk?", {"corpus": [str(small_corpus)]}
    )
    local = run_control.run_task(task.id, lyra_home)  # the local profile: every step in this process
    assert local.success, local.error
    local_counts = store.row_counts(task.id)
    local_claims = sorted(store.read_partition("claims", task.id)["claim_id"])
    local_edges = store.read_partition("nli_edges", task.id)[["edge_id", "relation"]]
    assert local_counts["claims"] > 0 and local_counts["nli_edges"] > 0
    with open_instance(lyra_home) as instance:  # the local run's record stays in the local instance
        local_steps = {
            e.step_key for e in instance.all_logs(local.run_id, of_type=DagsterEventType.STEP_START)
        }

    monkeypatch.setenv("LYRA_PROFILE", "cluster")
    monkeypatch.setenv("LYRA_POSTGRES_URL", postgres_url)
    monkeypatch.setenv("LYRA_REDIS_URL", redis_url)
    store = LyraStore.at(lyra_home)  # the cluster's store: tables in Postgres, the same task in them
    store.create_task(task.query, task.options, task_id=task.id)
    # the workers rebuild the job from `lyra_assets.repository`; so does this run, under the cluster profile
    monkeypatch.delitem(sys.modules, "lyra_assets.repository", raising=False)
    job = ReconstructableRepository.for_module(
        "lyra_assets.repository", "defs", working_directory=str(REPO_ROOT)
    ).get_reconstructable_job(TASK_JOB)
    with (
        lyra_workers(2, lyra_home, dict(os.environ), tmp_path) as workers,
        open_instance(lyra_home) as instance,
    ):
        register_partition(instance, task.id)
        started = time.monotonic()
        result = execute_job(job, instance, tags={PARTITION_TAG: task.id, **task_tags(task.id, task.query)})
        took = time.monotonic() - started
        assert result.success, [e.message for e in result.all_events if e.is_failure]
        run_id = result.run_id
        starts = list(instance.all_logs(run_id, of_type=DagsterEventType.STEP_START))
        hosts = {
            metadata["Celery worker"].value  # dagster-celery's "Executing steps … in celery worker"
            for entry in instance.all_logs(run_id, of_type=DagsterEventType.ENGINE_EVENT)
            if "Celery worker" in (metadata := entry.dagster_event.engine_event_data.metadata)
        }
        waits = store_lock_waits(instance, run_id)
    step_pids = {entry.dagster_event.pid for entry in starts}
    assert {entry.step_key for entry in starts} == local_steps  # every step the local run ran
    assert os.getpid() not in step_pids and len(step_pids) >= 1
    # each step ran on one of the two workers this test started (their names carry their pids)
    worker_pids = {int(host.split("@")[0].removeprefix("lyra-")) for host in hosts}
    assert worker_pids and worker_pids <= {w.pid for w in workers}, hosts
    assert store.row_counts(task.id) == local_counts  # the Postgres store holds what the DuckDB file holds
    assert sorted(store.read_partition("claims", task.id)["claim_id"]) == local_claims
    assert store.read_partition("nli_edges", task.id)[["edge_id", "relation"]].equals(local_edges)
    print(
        f"cluster run: {took:.1f}s, {len(starts)} steps on workers {sorted(worker_pids)} in processes "
        f"{sorted(step_pids)}; store lock waits {waits}"
    )
