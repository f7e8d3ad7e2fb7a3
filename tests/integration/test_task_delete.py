"""`lyra task delete` removes everything the task left (rows, Parquet, report, verify results, the
run log, its Dagster runs and their captured output, its partition) and keeps feedback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest
from dagster import RunsFilter

from fixtures.runs import cli
from lyra_assets.execution.runs import PARTITION_TAG, TASK_TAG, open_instance, task_runs
from lyra_assets.partitions import TASKS_PARTITION
from lyra_resources.schema import FEEDBACK_TABLES
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.feedback.apply import apply_feedback
from lyra_tools.mcp.server import spawn_task_run


def feedback_rows(store: LyraStore) -> dict[str, list]:
    with store.connect() as conn:
        return {t: sorted(map(repr, conn.execute(f"SELECT * FROM {t}").fetchall())) for t in FEEDBACK_TABLES}


def task_files(home, task_id: str) -> list[str]:
    """Every path under the home that names the task."""
    return sorted(str(p.relative_to(home)) for p in home.rglob(f"*{task_id}*"))


@pytest.mark.slow
def test_delete_removes_the_tasks_files_and_runs_and_keeps_feedback(tmp_path, small_corpus):
    home = tmp_path / "h"
    kept = cli(
        "run", "Does vitamin D reduce fracture risk?", "--corpus", str(small_corpus), "--home", str(home)
    )
    assert kept.exit_code == 0, kept.output
    kept_id = re.search(r"task_[0-9a-f]{8}", kept.output).group(0)
    claims = tmp_path / "claims.txt"
    claims.write_text("High-dose vitamin D lowers the risk of hip fracture.\n")
    verified = cli("verify", "--corpus", str(small_corpus), "--claims", str(claims), "--home", str(home))
    assert verified.exit_code == 0, verified.output
    task_id = next(t for t in re.findall(r"task_[0-9a-f]{8}", verified.output) if t != kept_id)
    os.utime(small_corpus)  # the corpus is touched: the re-run runs (an unchanged one would be skipped)
    pid, log = spawn_task_run(task_id, home)  # MCP's detached re-run, its output in the task's log
    assert os.waitpid(pid, 0)[1] == 0, log.read_text()[-2000:]  # the run is this process's child
    store = LyraStore.at(home)
    assert store.require_task(task_id).status == "completed", log.read_text()[-2000:]
    apply_feedback(store, task_id, "add_note", {"target_id": task_id, "note": "check the 2024 cohort"})
    feedback = feedback_rows(store)
    before = task_files(home, task_id)
    for expected in (
        f"reports/{task_id}.md",
        f"reports/{task_id}.html",
        f"reports/{task_id}.svg",
        f"verify/{task_id}.jsonl",
        f"logs/{task_id}.log",
        f"parquet/claims/task_id={task_id}",
    ):
        assert expected in before, before
    with open_instance(home) as instance:
        runs = [r.dagster_run.run_id for r in task_runs(instance, task_id)]
        assert len(runs) == 2
    run_files = [p for run_id in runs for p in home.rglob(f"*{run_id}*")]  # captured step output, by run id
    assert run_files

    deleted = cli("task", "delete", task_id, "--yes", "--home", str(home))
    text = " ".join(deleted.output.split())
    assert deleted.exit_code == 0, deleted.output
    assert "2 Dagster run(s)" in text and "feedback is kept" in text
    for name in (f"{task_id}.md", f"{task_id}.jsonl", f"{task_id}.log", f"_generations/{task_id}"):
        assert name in text, deleted.output  # each path removed is named
    assert task_files(home, task_id) == []  # nothing under the home names the task any more
    assert not [p for p in run_files if p.exists()]
    with open_instance(home) as instance:
        for tags in ({TASK_TAG: task_id}, {PARTITION_TAG: task_id}):
            assert instance.get_run_records(RunsFilter(tags=tags)) == []
        assert not instance.has_dynamic_partition(TASKS_PARTITION, task_id)
        assert len(task_runs(instance, kept_id)) == 1  # the other task's run, untouched
    assert feedback_rows(store) == feedback  # feedback holds for every task: kept
    assert f"reports/{kept_id}.md" in task_files(home, kept_id) and store.row_counts(kept_id)["claims"] > 0


# `lyra task run` in a real process held at the moment it hands the run over to Dagster (before
# Dagster has any record of the run: only the process itself knows the task is running).
HELD_AT_HANDOVER = """
import pathlib, sys, time
from lyra_assets.execution import run_control

flag = pathlib.Path(sys.argv[1])

def held(*args, **kwargs):
    flag.write_text("handing over")
    time.sleep(600)

run_control.record_handover = held
from lyra_tools.cli import main
sys.argv = ["lyra", *sys.argv[2:]]
main()
"""


def test_deleting_a_task_whose_run_is_in_progress_is_refused(tmp_path, small_corpus):
    home = tmp_path / "h"
    task = LyraStore.at(home).create_task(
        "Does vitamin D reduce fracture risk?", {"corpus": [str(small_corpus)]}
    )
    flag = tmp_path / "handing_over"
    run = subprocess.Popen(
        [sys.executable, "-c", HELD_AT_HANDOVER, str(flag), "task", "run", task.id, "--home", str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not flag.exists():
            assert run.poll() is None and time.monotonic() < deadline, run.communicate()[0][-3000:]
            time.sleep(0.2)
        refused = lyra_process("task", "delete", task.id, "--yes", "--home", home)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert refused.stderr.strip().splitlines() == [
            f"error: task {task.id} is running (its run, or the command that started it, is still at work); stop it "
            f"first with `lyra task stop {task.id}`"
        ], refused.stderr
        assert LyraStore.at(home).require_task(task.id).query == task.query  # nothing was deleted
    finally:
        run.kill()
        run.communicate()
    deleted = lyra_process(
        "task", "delete", task.id, "--yes", "--home", home
    )  # its process gone: the lock with it
    assert deleted.returncode == 0, deleted.stdout + deleted.stderr
    assert LyraStore.at(home).get_task(task.id) is None and task_files(home, task.id) == []


def lyra_process(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess:
    """``lyra ARGS`` as a real process without a terminal."""
    env = {k: v for k, v in os.environ.items() if k not in ("LYRA_HOME", "LYRA_DEBUG")}
    return subprocess.run(
        [sys.executable, "-m", "lyra_tools.cli", *map(str, args)],
        env=env,
        text=True,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=300,
    )
