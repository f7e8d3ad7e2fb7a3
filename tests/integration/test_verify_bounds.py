"""`lyra verify` on a large batch, as a real process with no terminal: a batch over --max-claims is
refused in one line before anything exists, a batch it takes says up front on stderr how many
claims and NLI pairs it judges and the estimated time, and Ctrl-C (SIGINT) mid-run is one line,
exit code 130, and a home whose task reads stopped."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lyra_resources.store.lyra_store import LyraStore


def claims_file(path: Path, n: int) -> Path:
    path.write_text("".join(f"Sleep loss in cohort {i} impairs memory consolidation.\n" for i in range(n)))
    return path


def lyra(*args: str | Path, **kwargs) -> subprocess.Popen:
    """``lyra ARGS`` through the console script's entry point, SIGINT at Python's default even where
    the test runner was started in a shell's background (which ignores it for its children)."""
    return subprocess.Popen(
        [sys.executable, "-m", "lyra_tools.cli", *map(str, args)],
        stdin=subprocess.DEVNULL,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        **kwargs,
    )


def test_a_batch_over_max_claims_is_refused_in_one_line_and_creates_nothing(tmp_path, small_corpus):
    home = tmp_path / "h"
    big = claims_file(tmp_path / "claims.txt", 1001)
    proc = lyra(
        "verify",
        "--corpus",
        small_corpus,
        "--claims",
        big,
        "--home",
        home,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("a batch over the default --max-claims was taken and ran")
    assert proc.returncode == 1 and out == ""
    assert len(err.splitlines()) == 1, err
    assert err.startswith("error: ") and "1,001 claims, more than --max-claims 1,000" in err
    assert "8,008 NLI pairs" in err and "--max-claims 1001" in err  # what it would cost, and how to go on
    assert not home.exists()


@pytest.mark.slow  # the run reaches the embedding model before it is interrupted
def test_verify_says_its_plan_first_and_ctrl_c_stops_it_in_one_line(tmp_path, small_corpus):
    home = tmp_path / "h"
    claims = claims_file(tmp_path / "claims.txt", 1200)
    out_path, err_path = tmp_path / "out.txt", tmp_path / "err.txt"
    with out_path.open("w") as out, err_path.open("w") as err:
        proc = lyra(
            "verify",
            "--corpus",
            small_corpus,
            "--claims",
            claims,
            "--max-claims",
            1200,
            "--home",
            home,
            stdout=out,
            stderr=err,
        )
    deadline = time.monotonic() + 300
    while "✓ fragments" not in out_path.read_text():  # the run is in Dagster, at the model steps
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(
                f"the run never reached its model steps: {out_path.read_text()[-2000:]} {err_path.read_text()}"
            )
        time.sleep(0.1)
    plan = err_path.read_text().splitlines()
    assert len(plan) == 1 and re.fullmatch(
        r"verify: 1,200 claims, at most 9,600 NLI pairs; estimated \d+ min \(recorded .* on a 2-core CPU.*\)",
        plan[0],
    ), plan
    proc.send_signal(signal.SIGINT)
    try:
        code = proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("Ctrl-C did not stop the run")
    lines = err_path.read_text().splitlines()
    assert code == 130 and len(lines) == 2, lines  # the plan, then the stop: no Dagster traceback
    task_id = re.search(r"task_[0-9a-f]{8}", out_path.read_text()).group(0)
    assert lines[1] == (
        f"error: interrupted: task {task_id} stopped (run {LyraStore.at(home).require_task(task_id).last_run_id}); "
        f"`lyra task run {task_id}` runs it again"
    )

    # the home stays usable: the task reads stopped and every reading command works
    assert LyraStore.at(home).require_task(task_id).status == "stopped"
    for args in (("task", "list"), ("task", "status", task_id)):
        done = subprocess.run(
            [sys.executable, "-m", "lyra_tools.cli", *args, "--home", str(home)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0 and done.stderr == "" and "stopped" in done.stdout, done


def test_lyra_run_bounds_its_own_claims_as_verify_bounds_a_batch(tmp_path, small_corpus):
    home = tmp_path / "h"
    question = "Does sleep loss impair memory consolidation?"
    big = claims_file(tmp_path / "claims.txt", 1001)
    refused = subprocess.run(
        [sys.executable, "-m", "lyra_tools.cli", "run", question, "--corpus", str(small_corpus)]
        + ["--claims-file", str(big), "--home", str(home)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 1 and refused.stdout == "" and len(refused.stderr.splitlines()) == 1
    line = refused.stderr
    assert line.startswith(f"error: --claims-file {big} holds 1,001 claims, more than --max-claims 1,000"), (
        line
    )
    assert "8,008 NLI pairs" in line and "--max-claims 1001" in line  # what it would cost, and how to go on
    assert not home.exists()  # refused before the corpus is read or anything is made

    # a batch it takes: what it costs, on stderr, before the task exists
    taken = lyra(
        "run",
        question,
        "--corpus",
        small_corpus,
        "--claims-file",
        big,
        "--max-claims",
        1001,
        "--home",
        home,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        first = taken.stderr.readline()
    finally:
        taken.kill()
        taken.wait(timeout=60)
    assert re.fullmatch(
        r"your claims: 1,001 claims, at most 8,008 NLI pairs; estimated \d+ min \(recorded .* on a 2-core CPU.*\)\n",
        first,
    ), first


def test_task_status_summarises_an_option_too_long_for_its_line(tmp_path):
    from typer.testing import CliRunner

    from lyra_tools.cli import app

    home = tmp_path / "h"
    claims = [f"Sleep loss in cohort {i} impairs memory consolidation." for i in range(10_000)]
    task = LyraStore.at(home).create_task(
        "Does sleep loss impair memory?", {"corpus": ["/data/sleep.jsonl"], "claims": claims}
    )
    done = CliRunner().invoke(app, ["task", "status", task.id, "--home", str(home)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    options = next(line for line in done.output.splitlines() if line.startswith("status:"))
    assert len(options) < 300, len(options)
    assert options.endswith(
        "options: {'corpus': ['/data/sleep.jsonl'], 'claims': 10,000 claims (first: "
        "'Sleep loss in cohort 0 impairs memory consolidation.')}"
    ), options
