"""The `lyra` command line, as a user runs it."""

import re

import pytest
from typer.testing import CliRunner

from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli import app

cli = CliRunner()


def invoke(*args: str):
    return cli.invoke(app, list(args), catch_exceptions=False)


@pytest.mark.slow
def test_run_then_manage_the_task(tmp_path, small_corpus):
    home = str(tmp_path / "h")
    result = invoke(
        "run",
        "Does vitamin D supplementation reduce fracture risk?",
        "--corpus",
        str(small_corpus),
        "--home",
        home,
    )
    assert result.exit_code == 0, result.output
    task_id = re.search(r"task_[0-9a-f]{8}", result.output).group(0)
    assert "completed" in result.output and "lyra.duckdb" in result.output
    assert re.search(r"fragments\s*│\s*\d+", result.output)

    listed = invoke("task", "list", "--home", home)
    assert task_id in listed.output and "completed" in listed.output

    status = invoke("task", "status", task_id, "--home", home)
    assert status.exit_code == 0
    last_run = LyraStore.at(home).require_task(task_id).last_run_id
    assert re.search(rf"{last_run}\s+completed\s+published", status.output), status.output
    answer = next(line for line in result.output.splitlines() if line.startswith("Answer: "))
    assert answer in status.output  # the answer, where a queued run's user looks for it

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
    assert missing.exit_code == 1 and "corpus path does not exist" in missing.output
    no_home = invoke("task", "status", "task_00000000", "--home", home)  # the refused run made no home
    assert no_home.exit_code == 1 and "no Lyra home at" in no_home.output and not (tmp_path / "h").exists()
    LyraStore.at(home)
    unknown = invoke("task", "status", "task_00000000", "--home", home)
    assert unknown.exit_code == 1 and "no task 'task_00000000'" in unknown.output
    empty = invoke("run", "   ", "--home", home)
    assert empty.exit_code == 1 and "non-empty" in empty.output


@pytest.mark.slow
def test_home_from_environment(tmp_path, small_corpus, monkeypatch):
    monkeypatch.setenv("LYRA_HOME", str(tmp_path / "envhome"))
    assert invoke("run", "sleep memory", "--corpus", str(small_corpus)).exit_code == 0
    assert LyraStore.at(tmp_path / "envhome").list_tasks()[0].query == "sleep memory"  # the home's store
    assert (tmp_path / "envhome" / "parquet").is_dir()
    assert (tmp_path / "envhome" / "dagster" / "dagster.yaml").exists()


@pytest.mark.slow
def test_stop_interrupts_a_run_in_another_process(tmp_path, small_corpus):
    import subprocess
    import sys
    import time

    from lyra_assets.execution.runs import active_runs, open_instance, task_runs

    home = tmp_path / "h"
    store = LyraStore.at(home)
    task = store.create_task("vitamin D and fractures", {"corpus": [str(small_corpus)]})
    proc = subprocess.Popen(
        [sys.executable, "-m", "lyra_tools.cli", "task", "run", task.id, "--home", str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until the run is really under way
        with open_instance(home) as instance:
            if active_runs(instance, task.id):
                break
        time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("the run never started")
    stop = invoke("task", "stop", task.id, "--home", str(home))
    assert stop.exit_code == 0 and "stopped 1 run" in stop.output
    assert proc.wait(timeout=60) == 130  # stopped, as Ctrl-C stops it: said in one line
    lines = proc.stdout.read().strip().splitlines()
    assert lines[-1].startswith(f"error: interrupted: task {task.id} stopped") and "error: 130" not in lines
    assert store.require_task(task.id).status == "stopped"
    with open_instance(home) as instance:
        assert not active_runs(instance, task.id)
        assert task_runs(instance, task.id)[0].dagster_run.status.value in {"CANCELED", "FAILURE"}


def test_feedback_command_records_and_refuses_clearly(tmp_path):
    home = str(tmp_path / "h")
    task = LyraStore.at(home).create_task("vitamin D and fractures")
    ok = invoke(
        "feedback",
        "apply",
        task.id,
        "domain_block",
        '{"domain_pattern": "spam.example", "reason": "ads only"}',
        "--home",
        home,
    )
    assert ok.exit_code == 0, ok.output
    rules = LyraStore.at(home).fetch_df("SELECT domain_pattern, decision FROM domain_override_rules")
    assert rules.to_dict("records") == [{"domain_pattern": "spam.example", "decision": "block"}]
    tld = invoke(
        "feedback",
        "apply",
        task.id,
        "domain_block",
        '{"domain_pattern": "*.com", "reason": "x"}',
        "--home",
        home,
    )
    assert tld.exit_code == 1 and "*.com" in tld.output
    bad_json = invoke("feedback", "apply", task.id, "add_note", "{not json", "--home", home)
    assert bad_json.exit_code == 1 and "not valid JSON" in bad_json.output
    assert len(LyraStore.at(home).fetch_df("SELECT * FROM domain_override_rules")) == 1


@pytest.mark.slow
def test_lyra_run_of_a_one_word_question_prints_the_hint_and_runs(tmp_path, small_corpus):
    result = cli.invoke(
        app, ["run", "fracture", "--corpus", str(small_corpus), "--home", str(tmp_path / "h")]
    )
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if "too vague" in line]
    assert len(notes) == 1 and notes[0].startswith("note: the question has one content word ('fracture')")
    assert LyraStore.at(tmp_path / "h").list_tasks()[0].query == "fracture"
