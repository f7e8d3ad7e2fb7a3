"""Nothing lost under the cluster profile: a step worker or a run's own process killed mid-run ends
the run FAILED in bounded time, the task row says so and the task's previous graph stays readable;
the local profile's instance is untouched."""

from __future__ import annotations

import os
import signal
import time
from contextlib import contextmanager

import pytest
import yaml
from dagster import DagsterEventType, DagsterRunStatus

from bench.local_servers import lyra_workers
from fixtures.cluster import LOCAL_DAGSTER_YAML, cluster_daemon, run_of_request, use_cluster, wait_for
from lyra_assets.execution import run_control
from lyra_assets.execution.celery_steps import WORKER_LOST_AFTER_S
from lyra_assets.execution.runs import (
    RUN_MONITORING,
    cluster_dagster_yaml,
    open_instance,
    prepare_instance_dir,
)
from lyra_assets.execution.step_workers import celery_config
from lyra_resources.home import HomeLayout
from lyra_resources.settings.services import ClusterSettings
from lyra_resources.store.lyra_store import LyraStore


def test_the_cluster_watches_its_runs_and_the_local_profile_is_unchanged(tmp_path, local_profile):
    cluster = ClusterSettings(profile="cluster", postgres_url="postgresql://lyra@db:5432/lyra")
    config = yaml.safe_load(cluster_dagster_yaml(cluster))
    assert config["run_monitoring"] == RUN_MONITORING and RUN_MONITORING["enabled"] is True
    assert config["run_launcher"]["class"] == "DefaultRunLauncher"
    steps = celery_config("redis://127.0.0.1:9/0")["config_source"]
    assert steps["task_track_started"] is True and steps["task_acks_late"] is False
    assert steps["worker_disable_prefetch"] is True
    layout = HomeLayout(root=tmp_path / "h")
    prepare_instance_dir(layout, cluster)
    prepare_instance_dir(layout, ClusterSettings())  # back to local: the very bytes it always had
    assert (layout.dagster_home / "dagster.yaml").read_bytes() == LOCAL_DAGSTER_YAML


# -- runs killed half-way ---------------------------------------------------------------------------


@contextmanager
def task_held(store: LyraStore, task_id: str):
    """Another session holds the task's lock in the Postgres store until the block ends, so steps
    (each opens the run's generation of the task first) wait on it."""
    from lyra_resources.store.postgres import PostgresConnection

    holder = PostgresConnection.open(store.url)
    try:
        holder.execute("SELECT pg_advisory_lock(hashtext(?))", [f"lyra task {task_id}"])
        yield
    finally:
        holder.close()


def snapshot(store: LyraStore, task_id: str) -> tuple[dict[str, int], list[str], list[str]]:
    return (
        store.row_counts(task_id),
        sorted(store.read_partition("claims", task_id)["claim_id"]),
        sorted(store.read_partition("nli_edges", task_id)["edge_id"]),
    )


def step_on_worker(instance, run_id: str) -> tuple[str, str] | None:
    """The first step dagster-celery reports executing on a worker: (step key, worker name)."""
    for entry in instance.all_logs(run_id, of_type=DagsterEventType.ENGINE_EVENT):
        metadata = entry.dagster_event.engine_event_data.metadata
        if "Celery worker" in metadata:
            return entry.dagster_event.step_key, metadata["Celery worker"].value
    return None


def previous_generation(home, small_corpus, question: str, postgres_url: str, monkeypatch):
    """A task whose graph a finished local run published in the Postgres store (the cluster's); the
    store and a snapshot of its rows."""
    monkeypatch.setenv("LYRA_STORE", "postgres")
    monkeypatch.setenv("LYRA_POSTGRES_URL", postgres_url)
    store = LyraStore(home=str(home))
    task = store.create_task(question, {"corpus": [str(small_corpus)]})
    assert run_control.run_task(task.id, home).success
    return store, task, snapshot(store, task.id)


@pytest.mark.slow
def test_a_step_worker_killed_mid_step_fails_the_run_and_keeps_the_previous_graph(
    lyra_home, small_corpus, postgres_url, redis_url, lyra_settings, local_profile, tmp_path, monkeypatch
):
    home = lyra_home
    store, task, before = previous_generation(
        home, small_corpus, "Does vitamin D reduce fracture risk?", postgres_url, monkeypatch
    )
    use_cluster(lyra_settings, postgres_url, broker=redis_url)
    with (
        lyra_workers(2, home, dict(os.environ), tmp_path) as workers,
        cluster_daemon(home) as (instance, tick),
    ):
        run_id = run_of_request(instance, run_control.queue_task(task.id, home).request_id, tick)
        with task_held(store, task.id):  # the steps wait on the store: killed surely mid-step
            step, worker = wait_for(lambda: step_on_worker(instance, run_id), tick, 300, "a step on a worker")
            pid = int(worker.split("@")[0].removeprefix("lyra-"))
            assert pid in {w.pid for w in workers}
            os.killpg(pid, signal.SIGKILL)  # the worker and the step process it forked
        killed = time.monotonic()
        wait_for(
            lambda: instance.get_run_by_id(run_id).is_finished,
            tick,
            WORKER_LOST_AFTER_S + 90,
            "the run to end",
        )
        took = time.monotonic() - killed
        assert instance.get_run_by_id(run_id).status == DagsterRunStatus.FAILURE
        successes = {e.step_key for e in instance.all_logs(run_id, of_type=DagsterEventType.STEP_SUCCESS)}
        assert step not in successes and "task_graph" not in successes
    with open_instance(home) as instance:
        row = run_control.sync_task_status(store, instance, task.id)
    assert (row.status, row.last_run_id) == ("failed", run_id) and row.error
    assert snapshot(store, task.id) == before  # the previous generation, whole
    print(f"worker {worker} killed during {step}: run failed {took:.0f}s later ({row.error[:200]})")


@pytest.mark.slow
def test_a_killed_run_process_is_failed_and_keeps_the_previous_graph(
    lyra_home, small_corpus, postgres_url, redis_url, lyra_settings, local_profile, tmp_path, monkeypatch
):
    home = lyra_home
    store, task, before = previous_generation(
        home, small_corpus, "Does sleep loss impair memory?", postgres_url, monkeypatch
    )
    use_cluster(lyra_settings, postgres_url, broker=redis_url)
    with lyra_workers(1, home, dict(os.environ), tmp_path), cluster_daemon(home) as (instance, tick):
        run_id = run_of_request(instance, run_control.queue_task(task.id, home).request_id, tick)
        with task_held(store, task.id):
            wait_for(lambda: step_on_worker(instance, run_id), tick, 300, "a step on a worker")
            [start] = instance.all_logs(run_id, of_type=DagsterEventType.RUN_START)
            run_pid = start.dagster_event.pid  # the run worker the DefaultRunLauncher started
            assert run_pid and run_pid != os.getpid()
            os.kill(run_pid, signal.SIGKILL)
            wait_for(lambda: instance.get_run_by_id(run_id).is_finished, tick, 60, "the run to end")
        assert instance.get_run_by_id(run_id).status == DagsterRunStatus.FAILURE
        row = run_control.sync_task_status(store, instance, task.id)
    assert (row.status, row.last_run_id) == ("failed", run_id) and row.error
    assert snapshot(store, task.id) == before
