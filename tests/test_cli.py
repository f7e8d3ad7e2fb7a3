"""The `lyra` command line, as a user runs it."""

import re

from typer.testing import CliRunner

from lyra_resources.store import LyraStore
from lyra_tools.cli import app

cli = CliRunner()


def invoke(*args: str):
    return cli.invoke(app, list(args), catch_exceptions=False)


def test_run_then_manage_the_task(tmp_path, small_corpus):
    home = str(tmp_path / "h")
    result = invoke("run", "Does vitamin D supplementation reduce fracture risk?", "--corpus", str(small_corpus),
                    "--home", home)
    assert result.exit_code == 0, result.output
    task_id = re.search(r"task_[0-9a-f]{8}", result.output).group(0)
    assert "completed" in result.output and "lyra.duckdb" in result.output
    assert re.search(r"fragments\s*│\s*\d+", result.output)

    listed = invoke("task", "list", "--home", home)
    assert task_id in listed.output and "completed" in listed.output

    status = invoke("task", "status", task_id, "--home", home)
    assert status.exit_code == 0 and "SUCCESS" in status.output

    counts = LyraStore.at(home).row_counts(task_id)
    rerun = invoke("task", "run", task_id, "--home", home)
    assert rerun.exit_code == 0 and LyraStore.at(home).row_counts(task_id) == counts

    stop = invoke("task", "stop", task_id, "--home", home)
    assert stop.exit_code == 0 and "no run in progress" in stop.output

    deleted = invoke("task", "delete", task_id, "--yes", "--home", home)
    assert deleted.exit_code == 0
    assert task_id not in invoke("task", "list", "--home", home).output


def test_clear_errors_for_bad_input(tmp_path):
    home = str(tmp_path / "h")
    missing = invoke("run", "q", "--corpus", str(tmp_path / "nope.jsonl"), "--home", home)
    assert missing.exit_code == 1 and "path not found" in missing.output
    unknown = invoke("task", "status", "task_00000000", "--home", home)
    assert unknown.exit_code == 1 and "no task 'task_00000000'" in unknown.output
    empty = invoke("run", "   ", "--home", home)
    assert empty.exit_code == 1 and "non-empty" in empty.output


def test_home_from_environment(tmp_path, small_corpus, monkeypatch):
    monkeypatch.setenv("LYRA_HOME", str(tmp_path / "envhome"))
    assert invoke("run", "sleep memory", "--corpus", str(small_corpus)).exit_code == 0
    assert (tmp_path / "envhome" / "lyra.duckdb").exists()
    assert (tmp_path / "envhome" / "dagster" / "dagster.yaml").exists()
