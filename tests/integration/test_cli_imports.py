"""The commands that load no model start without the heavy libraries: `lyra --help` imports no
Dagster, pandas, torch, sentence-transformers or networkx, and the commands that only read the
store (`lyra task list`, `lyra claims`) or record feedback (`lyra feedback`) do not either. They
run here as a user runs them, each in a fresh Python process on a real home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.graphs import write_graph
from fixtures.paths import REPO
from lyra_resources.store.lyra_store import LyraStore

HEAVY = ("dagster", "pandas", "torch", "sentence_transformers", "networkx", "lyra_assets")

# Runs `lyra` with the arguments given in-process, then prints which heavy modules it imported as
# the last line of stderr (the command's own output and exit code are left as they are).
RUN_AND_REPORT = f"""
import json, sys
from lyra_tools.cli import main
try:
    main(sys.argv[1:])
finally:
    sys.stderr.write("\\n" + json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)) + "\\n")
"""


def _python(args: list[str], home: Path | None = None) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    if home is not None:
        env["LYRA_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )


def _heavy_imports(*lyra_args: str, home: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    done = _python(["-c", RUN_AND_REPORT, *lyra_args], home)
    return done, json.loads(done.stderr.strip().splitlines()[-1])


def test_importing_the_command_line_loads_no_heavy_library():
    done = _python(
        ["-c", f"import lyra_tools.cli, sys; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"]
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_help_lists_every_command_without_a_heavy_library(tmp_path):
    done, heavy = _heavy_imports("--help", home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert {"run", "task", "claims", "feedback", "models", "search", "worker", "store"} <= set(
        word.strip("│ ") for line in done.stdout.splitlines() for word in line.split()[:2]
    )
    assert heavy == []


@pytest.fixture
def home_with_a_task(tmp_path) -> tuple[Path, str]:
    """A home with one task and its small graph, written the way the store writes a run's rows."""
    home = tmp_path / "home"
    graph = write_graph(LyraStore.at(home))
    return home, graph.task_id


def test_task_list_reads_the_store_without_dagster_or_models(home_with_a_task):
    home, task_id = home_with_a_task
    done, heavy = _heavy_imports("task", "list", "--home", str(home), home=home)
    assert done.returncode == 0, done.stderr
    assert task_id in done.stdout and "completed" in done.stdout
    assert heavy == []


def test_claims_read_the_graph_without_dagster_or_models(home_with_a_task):
    home, task_id = home_with_a_task
    done, heavy = _heavy_imports("claims", task_id, "--home", str(home), home=home)
    assert done.returncode == 0, done.stderr
    assert "claim" in done.stdout
    assert heavy == []


def test_feedback_is_recorded_and_the_report_rewritten_without_dagster(home_with_a_task):
    home, task_id = home_with_a_task
    claim_id = LyraStore.at(home).fetch_df(
        "SELECT claim_id FROM claims WHERE task_id = ? ORDER BY claim_id", [task_id]
    )["claim_id"][0]
    done, heavy = _heavy_imports(
        "feedback",
        "apply",
        task_id,
        "claim_reject",
        json.dumps({"claim_id": claim_id, "reason": "off topic"}),
        "--home",
        str(home),
        home=home,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["changed"] is True
    assert (home / "reports" / f"{task_id}.md").exists()  # the report follows the graph's correction
    assert heavy == []


def test_task_list_during_a_run_of_this_machine_reads_the_row_without_loading_dagster(home_with_a_task):
    """A process of this machine holds the task's run lock (as `lyra run` does for its whole run): the
    row's "running" is what it is, and that process records the end, so the list asks no Dagster
    (seconds of loading on a busy machine). Once the process is gone, Dagster is asked again."""
    home, task_id = home_with_a_task
    LyraStore.at(home).update_task(task_id, status="running", last_run_id="run-in-progress")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from lyra_resources.home import HomeLayout\n"
            "from lyra_resources.store import task_lock\n"
            f"with task_lock.running(HomeLayout(root={str(home)!r}), {task_id!r}):\n"
            "    print('running', flush=True)\n"
            "    sys.stdin.readline()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout.readline().strip() == "running"
        done, heavy = _heavy_imports("task", "list", "--home", str(home), home=home)
        assert done.returncode == 0, done.stderr
        assert task_id in done.stdout and "running" in done.stdout
        assert heavy == []
    finally:
        holder.communicate("done\n", timeout=60)
    done, heavy = _heavy_imports("task", "list", "--home", str(home), home=home)
    assert done.returncode == 0, done.stderr
    assert "dagster" in heavy  # no process runs it here any more: its Dagster run is consulted
