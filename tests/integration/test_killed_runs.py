"""Real `lyra task run` processes killed with SIGKILL: the Parquet files show one whole generation
of the task's graph, and the task's row and generation are put right by the Dagster sensor (no
reader involved) or, with no daemon, by the next `lyra` command."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from dagster import DagsterRunStatus, build_sensor_context

from fixtures.corpus import CHANGED_CORPUS, SMALL_CORPUS, write_jsonl
from fixtures.runs import cli, start_hanging_run
from lyra_assets.definitions import build_definitions
from lyra_assets.execution import run_control
from lyra_assets.execution.runs import open_instance
from lyra_resources.schema import PER_TASK_TABLES
from lyra_resources.store.generations import generation_of, published_generation
from lyra_resources.store.lyra_store import LyraStore

# `lyra task run` in a real process that stops for good while it writes the claims table's Parquet
# file, which the run writes only after its generation's commit: the kill lands between the
# database's switch to the new graph and the files'.
KILLED_AFTER_COMMIT = """
import pathlib, sys, time
import lyra_resources.store.parquet_files as parquet_files
import lyra_resources.store.lyra_store as store

write = parquet_files.write_parquet

def stall_at_claims(spec, frame, path):
    if spec.name == "claims":
        pathlib.Path(sys.argv[1]).write_text(str(path))
        time.sleep(600)
    write(spec, frame, path)

parquet_files.write_parquet = stall_at_claims
if hasattr(store, "write_parquet"):  # the writer as the store module imported it
    store.write_parquet = stall_at_claims
from lyra_tools.cli import app
app(sys.argv[2:], prog_name="lyra")
"""


def rows_of(frame: pd.DataFrame) -> list[tuple]:
    return sorted(tuple(map(str, row)) for row in frame.itertuples(index=False))


def parquet_graph(store: LyraStore, task_id: str) -> dict[str, list[tuple]]:
    """Each table's rows as a reader of the documented hive path sees them."""
    return {
        table: rows_of(
            duckdb.sql(
                f"SELECT * EXCLUDE (task_id) FROM read_parquet('{store.layout.parquet}/{table}/*/*.parquet', "
                f"hive_partitioning = true) WHERE task_id = '{task_id}'"
            ).df()
        )
        for table in PER_TASK_TABLES
    }


def same_graph(got: dict[str, list[tuple]], want: dict[str, list[tuple]]) -> list[str]:
    """The tables whose rows differ."""
    return [t for t in PER_TASK_TABLES if got[t] != want[t]]


def staged_rows(store: LyraStore, task_id: str) -> int:
    with store.connect() as conn:
        return sum(
            conn.execute(f"SELECT count(*) FROM stage_{t} WHERE task_id = ?", [task_id]).fetchone()[0]
            for t in PER_TASK_TABLES
        )


def start_killable(tmp_path: Path, home: Path, task_id: str) -> tuple[subprocess.Popen, Path]:
    flag = tmp_path / "writing_claims"
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_AFTER_COMMIT, str(flag), "task", "run", task_id, "--home", str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 300
    while not flag.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the run never wrote the claims file: {proc.communicate()[0][-3000:]}")
        time.sleep(0.2)
    return proc, flag


@pytest.mark.slow
def test_a_run_killed_after_its_publish_commit_leaves_whole_parquet_generations(tmp_path):
    home = tmp_path / "h"
    corpus = write_jsonl(tmp_path / "corpus.jsonl", SMALL_CORPUS)
    store = LyraStore.at(home)
    task = store.create_task(
        "Does vitamin D supplementation reduce fracture risk?", {"corpus": [str(corpus)]}
    )
    first = run_control.run_task(task.id, home)
    assert first.success, first.error
    old_files = parquet_graph(store, task.id)
    assert len(old_files["fragments"]) and len(old_files["claims"])

    write_jsonl(corpus, CHANGED_CORPUS)  # the next generation's papers, fragments and claims differ
    proc, _ = start_killable(tmp_path, home, task.id)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    killed_run = published_generation(store, task.id).run_id
    assert killed_run != first.run_id  # the database switched to the killed run's graph before the kill

    # the files readers see: the previous generation, every table of it, nothing of the new one
    assert same_graph(parquet_graph(store, task.id), old_files) == []

    # the next command (no daemon runs) notices the dead run: it published, so the task is complete
    status = cli("task", "status", task.id, "--home", str(home))
    text = " ".join(status.output.split())
    assert status.exit_code == 0 and "status: completed" in text, status.output
    assert (
        f"run {killed_run} published its graph at" in text and "killed before it recorded completion" in text
    )
    assert "before publishing its own" not in text
    new_files = parquet_graph(store, task.id)
    database = {t: rows_of(store.read_partition(t, task.id).drop(columns="task_id")) for t in PER_TASK_TABLES}
    assert same_graph(new_files, database) == []  # the files finished: the published graph, whole
    assert same_graph(new_files, old_files)  # and it is the new one
    assert generation_of(store, killed_run).exported_at is not None
    folder = store.layout.parquet / "_generations" / task.id
    current = (folder / "current").resolve()
    assert current.name.startswith(killed_run) and killed_run in (current / "manifest.json").read_text()
    # the previous generation's folder, and the one the killed process was writing, removed after the switch
    assert {p.name for p in folder.iterdir() if not p.name.startswith(".")} == {"current", current.name}


@pytest.mark.slow
def test_the_sensor_fails_a_killed_run_and_drops_its_generation_without_a_reader(tmp_path, small_corpus):
    home = tmp_path / "h"
    store = LyraStore.at(home)
    task = store.create_task("vitamin D and fractures", {"corpus": [str(small_corpus)]})
    proc = start_hanging_run(tmp_path, home, task.id)  # inside nli_edges, its rows staged
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    row = store.require_task(task.id)
    assert row.status == "running"
    assert generation_of(store, row.last_run_id).state == "building"
    assert staged_rows(store, task.id) > 0

    sensor = build_definitions(home).get_repository_def().get_sensor_def("task_status_sensor")
    with open_instance(home) as instance:
        tick = sensor.evaluate_tick(build_sensor_context(instance=instance, resources={"store": store}))
        run = instance.get_run_by_id(row.last_run_id)
    assert run.status == DagsterRunStatus.FAILURE
    after = store.require_task(task.id)
    assert (after.status, after.last_run_id) == ("failed", row.last_run_id)
    assert "was killed (process" in after.error and f"{task.id} → failed" in tick.skip_message
    assert generation_of(store, row.last_run_id).state == "abandoned"
    assert staged_rows(store, task.id) == 0  # dropped
    with open_instance(home) as instance:  # a second tick has nothing left to do
        again = sensor.evaluate_tick(
            build_sensor_context(instance=instance, resources={"store": store}, cursor=tick.cursor)
        )
    assert again.skip_message == "no task's run changed state" and store.require_task(task.id) == after
