"""The cluster profile's Dagster instance: runs, event logs and partitions in a real Postgres, a run
queue that starts at most one run per task and ``max_concurrent_runs`` in all, tasks submitted to it
by the CLI and the MCP server, and Dagster's own queued-run daemon starting them; the local profile's
instance exactly as before."""

from __future__ import annotations

import os
import re
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from dagster import DagsterRunStatus
from typer.testing import CliRunner

from bench.local_servers import lyra_workers
from fixtures.cluster import LOCAL_DAGSTER_YAML, cluster_daemon, evaluate_sensors, run_of_request, use_cluster
from fixtures.corpus import agent_corpus
from fixtures.mcp import call
from lyra_assets.execution import run_control
from lyra_assets.execution.run_queue import REQUEST_TAG
from lyra_assets.execution.run_queue import run_of_request as run_of_request_now
from lyra_assets.execution.runs import (
    ACTIVE_STATUSES,
    STORE_TAG,
    TASK_TAG,
    active_runs,
    open_instance,
    prepare_instance_dir,
    task_runs,
)
from lyra_resources.home import HomeLayout
from lyra_resources.settings.pipeline import SettingsError
from lyra_resources.settings.services import ClusterSettings
from lyra_resources.store import run_requests
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli import app

cli = CliRunner()


def invoke(*args: str):
    return cli.invoke(app, list(args), catch_exceptions=False)


def postgres_rows(url: str, sql: str, params: tuple = ()) -> list[tuple]:
    import psycopg2

    conn = psycopg2.connect(url)
    try:
        with conn.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    finally:
        conn.close()


def test_the_local_profile_writes_todays_dagster_yaml(tmp_path, local_profile):
    layout = HomeLayout(root=tmp_path / "h")
    prepare_instance_dir(layout)
    assert (layout.dagster_home / "dagster.yaml").read_bytes() == LOCAL_DAGSTER_YAML
    with open_instance(layout.root) as instance:  # the settings' profile: local by default
        assert type(instance.run_storage).__name__ == "SqliteRunStorage"
    assert (layout.dagster_home / "dagster.yaml").read_bytes() == LOCAL_DAGSTER_YAML
    own = b"# my own instance\ntelemetry:\n  enabled: false\n"
    (layout.dagster_home / "dagster.yaml").write_bytes(own)
    prepare_instance_dir(layout, ClusterSettings())  # a user's file in a local home is left alone
    assert (layout.dagster_home / "dagster.yaml").read_bytes() == own


def test_dagster_yaml_is_replaced_whole_or_not_at_all(tmp_path, monkeypatch):
    """A daemon, worker or run process reading dagster.yaml while the profile changes sees the old
    file or the new one: the new text goes to a file beside it that replaces it in one step."""
    layout = HomeLayout(root=tmp_path / "h")
    config = layout.dagster_home / "dagster.yaml"
    prepare_instance_dir(layout)
    cluster = ClusterSettings(profile="cluster", postgres_url="postgresql://lyra@db:5432/lyra")

    def crash(*_args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        prepare_instance_dir(layout, cluster)
    assert config.read_bytes() == LOCAL_DAGSTER_YAML  # the old file, whole
    assert sorted(p.name for p in layout.dagster_home.iterdir()) == ["dagster.yaml"]  # nothing left beside it
    monkeypatch.undo()
    prepare_instance_dir(layout, cluster)
    assert config.read_text().startswith("# Written by Lyra") and config.stat().st_mode & 0o077 == 0


def test_lyra_rewrites_its_own_dagster_yaml_when_the_profile_changes(tmp_path):
    layout = HomeLayout(root=tmp_path / "h")
    config = layout.dagster_home / "dagster.yaml"
    cluster = ClusterSettings(
        profile="cluster", postgres_url="postgresql://lyra@db:5432/lyra", max_concurrent_runs=2
    )
    prepare_instance_dir(layout)
    prepare_instance_dir(layout, cluster)  # local → cluster
    text = config.read_text()
    assert text.startswith("# Written by Lyra") and "postgresql+psycopg2://lyra@db:5432/lyra" in text
    assert "max_concurrent_runs: 2" in text and "- key: lyra/task_id" in text and "DefaultRunLauncher" in text
    prepare_instance_dir(layout, cluster.model_copy(update={"max_concurrent_runs": 5}))
    assert "max_concurrent_runs: 5" in config.read_text()
    prepare_instance_dir(layout, ClusterSettings())  # cluster → local: today's file again
    assert config.read_bytes() == LOCAL_DAGSTER_YAML
    prepare_instance_dir(layout, cluster)
    yours = config.read_text().split("\n", 1)[1].replace("DefaultRunLauncher", "DockerRunLauncher")
    config.write_text(yours)  # without Lyra's first line the file is the user's
    prepare_instance_dir(layout, cluster)
    assert config.read_text() == yours


def test_a_cluster_profile_without_postgres_is_refused_in_one_line(
    tmp_path, small_corpus, local_profile, monkeypatch, capsys
):
    layout = HomeLayout(root=tmp_path / "h")
    with pytest.raises(SettingsError, match="needs a Postgres URL") as refused:
        prepare_instance_dir(layout, ClusterSettings(profile="cluster"))
    assert "\n" not in str(refused.value)
    monkeypatch.setenv("LYRA_PROFILE", "cluster")  # the store is in Postgres too: every command needs the URL
    from lyra_tools.cli import main

    for command in (["task", "list"], ["run", "q", "--corpus", str(small_corpus)]):
        monkeypatch.setattr("sys.argv", ["lyra", *command, "--home", str(layout.root)])
        with pytest.raises(SystemExit) as ended:
            main()
        error = capsys.readouterr().err
        assert ended.value.code == 1 and error.count("\n") == 1 and "needs a Postgres URL" in error, error
    assert not layout.database.exists()  # nothing was created on the way


def test_a_cluster_home_queues_its_runs_in_postgres(
    tmp_path, small_corpus, postgres_url, lyra_settings, local_profile
):
    use_cluster(lyra_settings, postgres_url)
    home = tmp_path / "h"
    queued = invoke(
        "run", "Does vitamin D reduce fractures?", "--corpus", str(small_corpus), "--home", str(home)
    )
    assert queued.exit_code == 0, queued.output
    assert "queued" in queued.output and "lyra daemon" in queued.output
    task_id = re.search(r"task_[0-9a-f]{8}", queued.output).group(0)
    store = LyraStore(home=str(home))
    assert (store.require_task(task_id).status, store.require_task(task_id).last_run_id) == ("queued", None)
    again = invoke("task", "run", task_id, "--home", str(home))  # asked for once, never twice
    assert again.exit_code == 1 and "already has a run in progress" in again.output

    # Stopped before the daemon creates its run, the request is withdrawn: no run is ever created.
    (withdrawn,) = run_requests.pending(store, task_id)
    stopped = invoke("task", "stop", task_id, "--home", str(home))
    assert stopped.exit_code == 0 and "stopped 1 run" in stopped.output, stopped.output
    assert store.require_task(task_id).status == "stopped" and run_requests.pending(store, task_id) == []
    with cluster_daemon(home, start_runs=False) as (instance, tick):
        tick()
        assert (
            run_of_request_now(instance, withdrawn.request_id) is None and task_runs(instance, task_id) == []
        )

    # Asked for again, the daemon's sensor creates the run, queued, and the request goes.
    assert invoke("task", "run", task_id, "--home", str(home)).exit_code == 0
    (request,) = run_requests.pending(store, task_id)
    with cluster_daemon(home, start_runs=False) as (instance, tick):
        run_id = run_of_request(instance, request.request_id, tick)
        tick()  # the next evaluation settles the request whose run exists
    assert run_requests.pending(store, task_id) == []

    # The run lives in Postgres, not in files under the home.
    rows = postgres_rows(postgres_url, "SELECT status, partition FROM runs WHERE run_id = %s", (run_id,))
    assert rows == [("QUEUED", task_id)]
    tags = dict(postgres_rows(postgres_url, "SELECT key, value FROM run_tags WHERE run_id = %s", (run_id,)))
    assert tags[TASK_TAG] == task_id and tags["dagster/partition"] == task_id
    assert tags[REQUEST_TAG] == request.request_id
    assert tags[STORE_TAG] == LyraStore(home=str(home)).where  # its steps check they write there
    assert tags[STORE_TAG].startswith("Postgres 127.0.0.1:")
    assert not (home / "dagster" / "history").exists()
    dagster_yaml = (home / "dagster" / "dagster.yaml").read_text()
    assert "QueuedRunCoordinator" in dagster_yaml and "applyLimitPerUniqueValue: true" in dagster_yaml
    assert (home / "dagster" / "dagster.yaml").stat().st_mode & 0o077 == 0  # it holds the Postgres URL

    status = invoke("task", "status", task_id, "--home", str(home))
    assert "status: queued" in status.output and re.search(rf"{run_id}\s+queued", status.output), (
        status.output
    )
    task = LyraStore(home=str(home)).require_task(task_id)
    assert (task.status, task.last_run_id) == ("queued", run_id)
    again = invoke("task", "run", task_id, "--home", str(home))  # never two runs of one task in the queue
    assert again.exit_code == 1 and "already has a run in progress" in again.output

    # Switched back to local, the home writes today's file and sees its own (empty) run history;
    # switched to the cluster again, the queued run is there.
    lyra_settings(cluster={"profile": "local"})
    with open_instance(home) as instance:
        assert task_runs(instance, task_id) == []
    assert (home / "dagster" / "dagster.yaml").read_bytes() == LOCAL_DAGSTER_YAML
    use_cluster(lyra_settings, postgres_url)
    stopped = invoke("task", "stop", task_id, "--home", str(home))
    assert stopped.exit_code == 0 and "stopped 1 run" in stopped.output
    assert postgres_rows(postgres_url, "SELECT status FROM runs WHERE run_id = %s", (run_id,)) == [
        ("CANCELED",)
    ]
    assert LyraStore(home=str(home)).require_task(task_id).status == "stopped"


def test_mcp_create_task_queues_the_run_on_a_cluster(
    tmp_path, small_corpus, postgres_url, lyra_settings, local_profile
):
    from lyra_tools.mcp.server import build_server

    use_cluster(lyra_settings, postgres_url)
    server = build_server(tmp_path / "h")
    corpus = agent_corpus(tmp_path / "h", small_corpus)
    (created,) = call(
        server,
        [("create_task", {"query": "Does sleep loss impair memory?", "options": {"corpus": [str(corpus)]}})],
    )
    answer = created.structured_content
    assert not created.is_error and answer["status"] == "queued" and answer["pid"] is None
    store = LyraStore(home=str(tmp_path / "h"))
    (request,) = run_requests.pending(store, answer["task_id"])
    with cluster_daemon(tmp_path / "h", start_runs=False) as (instance, tick):
        run_id = run_of_request(instance, request.request_id, tick)
    rows = postgres_rows(postgres_url, "SELECT status, partition FROM runs WHERE run_id = %s", (run_id,))
    assert rows == [("QUEUED", answer["task_id"])]
    tags = dict(postgres_rows(postgres_url, "SELECT key, value FROM run_tags WHERE run_id = %s", (run_id,)))
    assert tags[STORE_TAG] == store.where


_QUEUED = DagsterRunStatus.QUEUED


def _in_progress(instance, run_ids: list[str]) -> list[str]:
    """The runs the daemon has started and that have not ended."""
    return [r for r in run_ids if instance.get_run_by_id(r).status in ACTIVE_STATUSES - {_QUEUED}]


@contextmanager
def worker_logs_on_failure(logs: Path):
    """A failed assertion prints the workers' logs: a step that fails in a worker says why only there."""
    try:
        yield
    except AssertionError:
        for log in sorted(logs.glob("worker*.log")):
            print(f"--- {log.name} ---\n{log.read_text(errors='replace')[-8000:]}")
        raise


@pytest.mark.slow
def test_the_daemon_starts_queued_runs_within_the_limits(
    lyra_home, small_corpus, postgres_url, redis_url, lyra_settings, local_profile, tmp_path
):
    """The whole cluster profile on one machine: runs queued in Postgres, started by Dagster's
    queued-run daemon within the limits, their steps executed by two `lyra worker` processes
    through a real Redis."""
    from dagster._core.workspace.context import WorkspaceProcessContext
    from dagster._core.workspace.load_target import WorkspaceFileTarget
    from dagster._daemon.run_coordinator.queued_run_coordinator_daemon import QueuedRunCoordinatorDaemon

    from lyra_resources.home import REPO_ROOT

    home = lyra_home  # $LYRA_HOME: the daemon's code server and the runs it starts work on this home too
    use_cluster(
        lyra_settings, postgres_url, max_concurrent_runs=1, broker=redis_url
    )  # the store in Postgres too
    store = LyraStore(home=str(home))
    first = store.create_task("Does vitamin D reduce fracture risk?", {"corpus": [str(small_corpus)]})
    second = store.create_task("Does sleep loss impair memory?", {"corpus": [str(small_corpus)]})
    requests = [
        run_control.queue_task(first.id, home).request_id,
        run_control.queue_task(second.id, home).request_id,
        run_requests.add(store, first.id),  # a second run of one task (a schedule's, say)
    ]
    with open_instance(home) as strict:
        workspace = WorkspaceFileTarget(paths=[str(REPO_ROOT / "workspace.yaml")])  # what `lyra daemon` loads
        with (
            lyra_workers(2, home, dict(os.environ), tmp_path),
            worker_logs_on_failure(tmp_path),
            WorkspaceProcessContext(strict, workspace) as strict_daemon_context,
            QueuedRunCoordinatorDaemon(interval_seconds=1) as daemon,
        ):
            evaluate_sensors(strict_daemon_context)  # the daemon's sensor creates the three runs
            runs = [run_of_request_now(strict, r) for r in requests]
            a1, b1, a2 = runs
            assert [strict.get_run_by_id(r).status for r in runs] == [
                _QUEUED
            ] * 3  # nothing dequeues them yet
            list(daemon.run_iteration(strict_daemon_context))
            # max_concurrent_runs 1: only the first run starts, though the other task has none running
            assert _in_progress(strict, runs) == [a1]

            use_cluster(
                lyra_settings, postgres_url, max_concurrent_runs=3, broker=redis_url
            )  # dagster.yaml rewritten
            with open_instance(home) as roomy, WorkspaceProcessContext(roomy, workspace) as context:
                assert roomy.get_run_by_id(a1).status in ACTIVE_STATUSES - {_QUEUED}
                list(daemon.run_iteration(context))
                # room for three, but never two of one task: the second task's run starts, not a2
                assert _in_progress(roomy, runs) == [a1, b1]
                assert roomy.get_run_by_id(a2).status == _QUEUED
                deadline = time.monotonic() + 900
                while (
                    not all(roomy.get_run_by_id(r).is_finished for r in runs) and time.monotonic() < deadline
                ):
                    list(daemon.run_iteration(context))
                    started = _in_progress(roomy, runs)
                    assert len(started) <= 3 and not {a1, a2} <= set(started)
                    time.sleep(2)
                assert [roomy.get_run_by_id(r).status.value for r in runs] == ["SUCCESS"] * 3
                assert active_runs(roomy, first.id) == [] and active_runs(roomy, second.id) == []
    listed = invoke("task", "list", "--home", str(home))  # the rows take their runs' outcome
    assert listed.exit_code == 0
    for task in (first, second):
        assert store.require_task(task.id).status == "completed"
    # the row follows the task's latest run: a2, which could start only once a1 had finished
    assert store.require_task(first.id).last_run_id == a2 and store.row_counts(first.id)["fragments"] > 0
