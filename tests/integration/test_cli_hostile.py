"""The ``lyra`` command under hostile input: every refusal is one ``error:`` line on stderr and a
non-zero exit code, and leaves nothing behind (no task, no partition, no home, no output file).

Most calls go through :func:`lyra_tools.cli.main`, the console script's own entry point, in this
process; the ones about the command line itself (bytes that are not UTF-8, a full standard output)
run ``python -m lyra_tools.cli`` as a subprocess. ``bench.fuzz_cli`` holds the full fuzz run; a
fixed-seed part of it runs here."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bench import fuzz_cli
from fixtures.paths import REPO as ROOT
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.task_input import TaskInputError, check_task_input
from lyra_tools import cli

CLAIM = fuzz_cli.CLAIM


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """A home with one completed task (bench.fuzz_cli.build_home) and the fuzz run's input files."""
    scratch = tmp_path_factory.mktemp("hostile")
    return fuzz_cli.build_home(scratch), fuzz_cli.write_inputs(scratch)


@pytest.fixture
def home(built) -> Path:
    return built[0]


@pytest.fixture
def inputs(built) -> Path:
    return built[1]


@pytest.fixture
def lyra(capsys, monkeypatch):
    """``lyra ARGS`` through the console script's entry point, as the installed ``lyra`` calls it
    (``main()`` reading ``sys.argv``): (exit code, stdout, stderr)."""

    def call(*args: str | Path) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["lyra", *map(str, args)])
        with pytest.raises(SystemExit) as ended:
            cli.main()
        out = capsys.readouterr()
        return ended.value.code, out.out, out.err

    return call


def lyra_process(*args: str | bytes | Path, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    """``python -m lyra_tools.cli ARGS``; a bytes argument reaches the command as those bytes."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LYRA_DEBUG", None)
    argv = [os.fsdecode(a) if isinstance(a, bytes) else str(a) for a in args]
    return subprocess.run(
        [sys.executable, "-m", "lyra_tools.cli", *argv],
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


def one_error_line(stderr: str, *fragments: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert "Traceback" not in stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def task_ids(home: Path) -> list[str]:
    return sorted(t.id for t in LyraStore.at(home).list_tasks())


# -- the command line: bytes that are not UTF-8, NUL, usage errors ------------------------------------


def test_a_question_with_a_byte_that_is_not_utf8_is_refused_before_any_home_exists(tmp_path, inputs):
    fresh = tmp_path / "fresh-home"
    result = lyra_process("run", b"\xff question", "--corpus", inputs / "corpus.jsonl", "--home", fresh)
    assert result.returncode == 1
    one_error_line(result.stderr.decode(), "argument 2", "byte 0xff", "not valid UTF-8")
    assert not fresh.exists()


def test_nul_in_a_question_or_argument_is_refused_in_one_line(lyra, home):
    before = task_ids(home)
    code, _, err = lyra("run", "vitamin D\x00 and fractures", "--home", home)
    assert code == 1
    one_error_line(err, "NUL character")
    assert task_ids(home) == before
    with pytest.raises(TaskInputError, match="research question holds a NUL"):  # the MCP server's path too
        check_task_input("vitamin D\x00 and fractures", {}, home)
    with pytest.raises(TaskInputError, match="not valid UTF-8"):
        check_task_input("vitamin D \udcff and fractures", {}, home)


def test_usage_errors_are_one_line(lyra, home):
    code, _, err = lyra("run", "vitamin D", "--papers", "abc", "--home", home)
    assert code == 2
    one_error_line(err, "--papers", "lyra run --help")
    code, _, err = lyra("frobnicate")
    assert code == 2
    one_error_line(err, "No such command")


# -- --home that cannot be a home ------------------------------------------------------------------


@pytest.mark.parametrize("where", ["file", "under a file", "/proc/1", "/dev/null"])
def test_a_home_that_is_a_file_or_a_system_folder_is_refused(lyra, inputs, where):
    path = {"file": inputs / "a_file", "under a file": inputs / "a_file" / "home"}.get(where, Path(where))
    for command in (
        ["task", "list"],
        ["run", "vitamin D and fractures", "--corpus", inputs / "corpus.jsonl"],
    ):
        code, _, err = lyra(*command, "--home", path)
        assert code == 1
        one_error_line(err, str(path))
    assert (inputs / "a_file").read_text() == "not a folder\n"


def test_a_refused_command_does_not_make_the_home_it_names(lyra, tmp_path, inputs):
    fresh = tmp_path / "not-yet"
    for args in (
        ["task", "status", "task_00000000"],
        ["export", "task_00000000", "--format", "bibtex"],
        ["run", "", "--corpus", inputs / "corpus.jsonl"],
        ["run", "vitamin D and fractures", "--corpus", inputs / "missing.jsonl"],
    ):
        code, _, err = lyra(*args, "--home", fresh)
        assert code == 1
        one_error_line(err)
        assert not fresh.exists(), args


# -- claims files ----------------------------------------------------------------------------------


def test_claims_nested_ten_thousand_deep_are_one_line(lyra, home, inputs):
    before = task_ids(home)
    for args in (
        ["verify", "--corpus", inputs / "corpus.jsonl", "--claims", inputs / "deep.jsonl"],
        ["verify", "--corpus", inputs / "corpus.jsonl", "--claims", inputs / "deep_object.jsonl"],
        [
            "run",
            "vitamin D and fractures",
            "--corpus",
            inputs / "corpus.jsonl",
            "--claims-file",
            inputs / "deep.jsonl",
        ],
        ["feedback", "apply", fuzz_cli.TASK, "add_note", fuzz_cli.DEEP],
    ):
        code, _, err = lyra(*args, "--home", home)
        assert code == 1
        one_error_line(err, "nested too deeply")
    assert task_ids(home) == before


def test_an_empty_claims_file_is_refused_as_verify_refuses_it(lyra, home, inputs):
    before = task_ids(home)
    for name in ("empty.txt", "comments.txt"):
        code, _, err = lyra(
            "run",
            "vitamin D and fractures",
            "--corpus",
            inputs / "corpus.jsonl",
            "--claims-file",
            inputs / name,
            "--home",
            home,
        )
        assert code == 1
        one_error_line(err, "--claims-file", "holds no claim")
    assert task_ids(home) == before


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nul.txt", "NUL character"),
        ("/dev/zero", "not a regular file"),
        ("sparse_huge.txt", "at most"),
        ("a_folder", "is a folder"),
    ],
)
def test_claims_files_that_cannot_be_claims_are_refused(lyra, home, inputs, name, message):
    path = Path(name) if name.startswith("/") else inputs / name
    before = task_ids(home)
    code, _, err = lyra(
        "run",
        "vitamin D and fractures",
        "--corpus",
        inputs / "corpus.jsonl",
        "--claims-file",
        path,
        "--home",
        home,
    )
    assert code == 1
    one_error_line(err, message)
    code, _, err = lyra("verify", "--corpus", inputs / "corpus.jsonl", "--claims", path, "--home", home)
    assert code == 1
    one_error_line(err, message)
    assert task_ids(home) == before


def test_a_corpus_nested_ten_thousand_deep_is_refused_and_leaves_no_cache(lyra, home, inputs):
    cache = sorted(p.name for p in (home / "cache" / "corpus").iterdir())
    code, _, err = lyra("run", "vitamin D and fractures", "--corpus", inputs / "deep.jsonl", "--home", home)
    assert code == 1
    one_error_line(err, "holds no readable papers", "nested too deeply")
    assert sorted(p.name for p in (home / "cache" / "corpus").iterdir()) == cache


def test_activating_an_unknown_model_version_changes_no_table(lyra, tmp_path):
    fresh = LyraStore.at(tmp_path / "home")
    code, _, err = lyra("models", "activate", "nli-v999", "--home", fresh.layout.root)
    assert code == 1
    one_error_line(err, "no NLI model version 'nli-v999'; known: ")
    assert fresh.fetch_df("SELECT count(*) AS n FROM nli_model_versions")["n"][0] == 0


# -- feedback text -----------------------------------------------------------------------------------


def test_nul_in_feedback_notes_and_reasons_is_refused(lyra, home):
    events = LyraStore.at(home).fetch_df("SELECT count(*) AS n FROM feedback_events")["n"][0]
    note = json.dumps({"target_id": fuzz_cli.TASK, "note": "see\x00this"})
    code, _, err = lyra("feedback", "apply", fuzz_cli.TASK, "add_note", note, "--home", home)
    assert code == 1
    one_error_line(err, "args.note", "NUL character")
    reject = json.dumps({"claim_id": "c_x", "reason": "wrong\x00"})
    code, _, err = lyra("feedback", "apply", fuzz_cli.TASK, "claim_reject", reject, "--home", home)
    assert code == 1
    one_error_line(err, "args.reason", "NUL character")
    assert LyraStore.at(home).fetch_df("SELECT count(*) AS n FROM feedback_events")["n"][0] == events


# -- export --out ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("a_folder", "is a folder"),
        ("nowhere/x.html", "does not exist"),
        ("a_file/x.html", "does not exist"),
        ("/dev/full", "No space left on device"),
    ],
)
def test_export_out_that_cannot_be_written_is_one_line_and_creates_nothing(
    lyra, home, inputs, target, message
):
    path = Path(target) if target.startswith("/") else inputs / target
    before = sorted(p.name for p in inputs.iterdir())
    code, _, err = lyra("export", fuzz_cli.TASK, "--format", "html", "--out", path, "--home", home)
    assert code == 1
    one_error_line(err, "--out", message)
    assert sorted(p.name for p in inputs.iterdir()) == before
    assert not (inputs / "nowhere").exists() and list((inputs / "a_folder").iterdir()) == []


def test_export_writes_the_file_whole(lyra, home, tmp_path):
    out = tmp_path / "report.html"
    code, _, _ = lyra("export", fuzz_cli.TASK, "--format", "html", "--out", out, "--home", home)
    assert code == 0 and "<html" in out.read_text().lower()
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary file left beside it


def test_standard_output_on_a_full_disk_is_one_line(home):
    with open("/dev/full", "wb") as full:
        result = lyra_process("task", "list", "--home", home, stdout=full)
    assert result.returncode == 1
    one_error_line(result.stderr.decode(), "standard output cannot be written")


# -- the last-resort guard ----------------------------------------------------------------------------


def test_an_unexpected_exception_is_one_line_pointing_to_its_traceback(lyra, home, monkeypatch):
    from lyra_tools.cli import tasks as cli_tasks

    def broken(*_args, **_kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(cli_tasks, "synced_tasks", broken)  # a bug no input reaches any more, planted
    monkeypatch.delenv("LYRA_DEBUG", raising=False)
    code, _, err = lyra("task", "list", "--home", home)
    assert code == 1
    line = one_error_line(err, "unexpected ZeroDivisionError: a bug", "LYRA_DEBUG=1")
    log = Path(line.split("traceback in ")[1].split(";")[0])
    try:
        assert "Traceback" in log.read_text() and "ZeroDivisionError" in log.read_text()
    finally:
        log.unlink()
    monkeypatch.setenv("LYRA_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        lyra("task", "list", "--home", home)


# -- the shared checks -------------------------------------------------------------------------------


def test_text_and_json_checks_name_the_problem():
    from lyra_core.validation import load_json, text_problem

    assert text_problem("plain text") is None
    assert text_problem("a\x00b") == "holds a NUL character (position 1)"
    assert text_problem("\udcffx") == "is not valid UTF-8 text (byte 0xff at position 0)"
    assert load_json('{"a": [1]}') == {"a": [1]}
    with pytest.raises(ValueError, match="nested too deeply"):
        load_json(fuzz_cli.DEEP)
    with pytest.raises(ValueError, match="not valid JSON"):
        load_json("{nope")


# -- a fixed-seed part of the fuzz run (python -m bench.fuzz_cli runs every case) -----------------------


def test_fuzz_sample_has_no_traceback_no_hang_and_refusals_change_nothing():
    chosen = random.Random(7).sample(fuzz_cli.cases(), 25)
    outcomes = fuzz_cli.run_cases(chosen, timeout_s=120, log=lambda _line: None)
    failed = [f"{o.case.name}: {'; '.join(o.problems)}" for o in outcomes if o.problems]
    assert not failed, "\n".join(failed)
    assert sum(o.code not in (0, None) for o in outcomes) >= 20  # hostile input is mostly refused
