"""Text from a question or a corpus reaches the terminal as text: Rich markup in it is printed, never
read (a question holding ``[/]`` runs, and the home's task list and status still work), and control
sequences in it (clearing the screen, OSC 52 clipboard writes, OSC 8 links, NUL, bidi overrides)
are shown as visible escapes, on a terminal and in a pipe. Every call is a real ``lyra`` process;
the MCP server is the real stdio server, starting the real detached run."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from fixtures.corpus import SMALL_CORPUS, write_jsonl
from fixtures.mcp import store_env
from lyra_resources.home import REPO_ROOT
from lyra_resources.store.lyra_store import LyraStore

MARKUP_QUESTION = "Does vitamin D [/] reduce fracture risk?"
CLEAR, OSC52, OSC8 = "\x1b[2J", "\x1b]52;c;ZXZpbA==\x07", "\x1b]8;;https://evil.example\x07link\x1b]8;;\x07"
HOSTILE_TITLE = f"Vitamin D {CLEAR}{OSC52}{OSC8} and fracture [/] risk \u202eevil\x00 in\n# older adults"
RAW = ("\x1b[2J", "\x1b]", "\x07", "\x00", "\u202e")  # none may reach the terminal


def lyra_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LYRA_HOME", "LYRA_DEBUG")}
    return env | {
        "PYTHONPATH": str(REPO_ROOT),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "COLUMNS": "200",
    }


def lyra(*args: str | Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """``python -m lyra_tools.cli ARGS`` with its output in a pipe (no terminal)."""
    return subprocess.run(
        [sys.executable, "-m", "lyra_tools.cli", *map(str, args)],
        env=lyra_env(),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
    )


def lyra_on_a_terminal(*args: str | Path, timeout: float = 600) -> str:
    """``python -m lyra_tools.cli ARGS`` writing to a pseudo-terminal; all it wrote."""
    main, sub = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "lyra_tools.cli", *map(str, args)],
        stdin=subprocess.DEVNULL,
        stdout=sub,
        stderr=sub,
        env=lyra_env() | {"TERM": "xterm-256color"},
    )
    os.close(sub)
    chunks, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the process closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert proc.wait(timeout=30) == 0, b"".join(chunks)[-2000:]
    return b"".join(chunks).decode("utf-8", "replace")


def hostile_corpus(path: Path) -> Path:
    rows = [dict(r) for r in SMALL_CORPUS]
    rows[0]["title"] = HOSTILE_TITLE
    return write_jsonl(path, rows)


def assert_no_raw_controls(text: str) -> None:
    for raw in RAW:
        assert raw not in text, (raw, text[-3000:])


def test_task_list_and_status_print_a_question_and_an_error_holding_markup(tmp_path):
    home = tmp_path / "h"
    store = LyraStore.at(home)
    task = store.create_task(MARKUP_QUESTION + " " + CLEAR)
    store.update_task(task.id, status="failed", error=f"no paper titled '[bold]{OSC8}' [/red] was found")

    listed, status = lyra("task", "list", "--home", home), lyra("task", "status", task.id, "--home", home)

    assert listed.returncode == 0 and status.returncode == 0, listed.stderr + status.stderr
    assert "[/]" in listed.stdout and "[/]" in status.stdout and "\\x1b[2J" in status.stdout
    assert "[bold]\\x1b]8;;https://evil.example\\x07link" in " ".join(status.stdout.split())
    assert_no_raw_controls(listed.stdout + listed.stderr + status.stdout + status.stderr)


@pytest.mark.slow
def test_search_shows_control_sequences_escaped_in_a_pipe_and_on_a_terminal(tmp_path):
    corpus, home = hostile_corpus(tmp_path / "hostile.jsonl"), tmp_path / "h"

    piped = lyra("search", "vitamin D fracture", "--corpus", corpus, "--home", home, "--top", "2")
    assert piped.returncode == 0, piped.stderr
    assert_no_raw_controls(piped.stdout + piped.stderr)
    rows = piped.stdout.splitlines()
    assert len(rows) == 3 and all(len(r.split("\t")) == 7 for r in rows)  # the newline started no row
    assert rows[1].split("\t")[6] == (
        "Vitamin D \\x1b[2J\\x1b]52;c;ZXZpbA==\\x07\\x1b]8;;https://evil.example\\x07"
        "link\\x1b]8;;\\x07 and fracture [/] risk \\u202eevil\\x00 in\\x0a# older adults"
    )

    shown = lyra_on_a_terminal(
        "search", "vitamin D fracture", "--corpus", corpus, "--home", home, "--top", "2"
    )
    assert_no_raw_controls(shown)  # Rich's own colour codes are ESC [ … m; nothing else
    assert not re.findall(r"\x1b(?!\[[0-9;]*m)", shown), shown
    assert "Vitamin D \\x1b" in shown  # the title, shown (cut to the column) with its escapes visible


@pytest.mark.slow
def test_a_question_holding_markup_runs_and_the_home_stays_usable(tmp_path):
    corpus, home = hostile_corpus(tmp_path / "small.jsonl"), tmp_path / "h"

    ran = lyra("run", MARKUP_QUESTION, "--corpus", corpus, "--home", home)

    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr
    assert "unexpected" not in ran.stderr and MARKUP_QUESTION in ran.stdout
    assert_no_raw_controls(ran.stdout + ran.stderr)  # the summary names the hostile paper, escaped
    assert "\\u202eevil\\x00" in ran.stdout
    task_id = re.search(r"task_[0-9a-f]{8}", ran.stdout).group(0)
    listed, status = lyra("task", "list", "--home", home), lyra("task", "status", task_id, "--home", home)
    assert listed.returncode == 0 and status.returncode == 0, listed.stderr + status.stderr
    assert "[/]" in listed.stdout and MARKUP_QUESTION in status.stdout and "completed" in status.stdout
    report = (home / "reports" / f"{task_id}.md").read_text()
    assert not [
        line for line in report.splitlines() if line.startswith("# older adults")
    ]  # no heading forged


@pytest.mark.slow
def test_mcp_create_task_with_a_markup_question_starts_its_run(tmp_path):
    """The real stdio server starts the real detached ``lyra task run``: the task leaves ``queued``
    (before, that process died printing the question and the task read queued for ever)."""
    home = tmp_path / "h"
    (home / "corpora").mkdir(parents=True)  # an agent names corpora under the server's corpus roots
    corpus = write_jsonl(home / "corpora" / "small.jsonl", SMALL_CORPUS)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "lyra_tools.mcp.server", "--home", str(home)],
        cwd=str(REPO_ROOT),
        env={**lyra_env(), **store_env()},
    )

    async def session() -> tuple[dict, list[str], dict]:
        async with Client(params, read_timeout_seconds=120) as client:
            created = (
                await client.call_tool(
                    "create_task", {"query": MARKUP_QUESTION, "options": {"corpus": [str(corpus)]}}
                )
            ).structured_content
            log, seen = Path(created["log_path"]), []
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                status = (
                    await client.call_tool("get_status", {"task_id": created["task_id"]})
                ).structured_content
                seen.append(status["status"])
                if status["status"] != "queued" or "error:" in (log.read_text() if log.exists() else ""):
                    break
                await anyio.sleep(2)
            stopped = (
                await client.call_tool("stop_task", {"task_id": created["task_id"]})
            ).structured_content
            return created, seen, stopped

    created, seen, stopped = anyio.run(session)

    log = Path(created["log_path"]).read_text()
    assert created["status"] == "queued" and "MarkupError" not in log, log[-2000:]
    assert seen[-1] in ("running", "completed"), (seen, log[-2000:])
    assert MARKUP_QUESTION in log
    assert stopped["task_id"] == created["task_id"]
    gone_by = time.monotonic() + 120  # the stopped run's process ends
    while time.monotonic() < gone_by and process_alive(created["pid"]):
        time.sleep(1)
    assert not process_alive(created["pid"])


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def test_the_paths_a_run_prints_stay_on_their_lines_with_their_controls_escaped(tmp_path, capsys):
    """A home whose path holds a line break, an escape sequence and markup: the summary's Report,
    DuckDB and Parquet lines print it as text, and no line of its own can be forged from it."""
    from bench.fuzz_cli import TASK, build_home
    from lyra_assets.execution.run_control import RunOutcome
    from lyra_resources.store.reviewed_graph.report import write_report
    from lyra_tools.cli.run import print_summary

    folder = tmp_path / f"odd\nReport:  forged.md {CLEAR}[bold]"
    folder.mkdir()
    home = build_home(folder)
    write_report(LyraStore.at(home), TASK)  # as the run's task_report asset writes it

    print_summary(RunOutcome(task_id=TASK, run_id="run-1", success=True, status="SUCCESS", assets={}), home)

    out = capsys.readouterr().out
    assert_no_raw_controls(out)
    paths = [line for line in out.splitlines() if line.startswith(("Report:", "DuckDB:", "Parquet:"))]
    assert [line.split()[0] for line in paths] == ["Report:", "DuckDB:", "Parquet:"], paths  # none forged
    shown = str(home).replace("\n", "\\x0a").replace("\x1b", "\\x1b")
    assert paths == [
        f"Report:  {shown}/reports/{TASK}.md",
        f"DuckDB:  {shown}/lyra.duckdb",
        f"Parquet: {shown}/parquet/<table>/task_id={TASK}/data.parquet",
    ]
