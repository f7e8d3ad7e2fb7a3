"""A command that waits for the home's DuckDB file says why after a short wait, naming who holds it:
the run of a task (the process holding the task's run lock) or another process by its command line.
A wait shorter than that says nothing. Real processes hold the real file; `lyra` runs as a user runs it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from lyra_resources.home import HomeLayout
from lyra_resources.store.locks import NOTICE_AFTER_S, notify_waits
from lyra_resources.store.lyra_store import LyraStore

pytestmark = pytest.mark.duckdb_file  # the DuckDB file lock and its retries


@contextmanager
def holder(home: Path, task_id: str | None = None) -> Iterator[subprocess.Popen]:
    """A real process that opens the home's database for writing and keeps it until told (a line on
    its standard input); with ``task_id``, it holds that task's run lock too, as the process running
    the task does."""
    layout = HomeLayout(root=home)
    run_lock = (
        f"task_lock.running(HomeLayout(root={str(home)!r}), {task_id!r})" if task_id else "nullcontext()"
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import sys
            from contextlib import nullcontext
            import duckdb
            from lyra_resources.home import HomeLayout
            from lyra_resources.store import task_lock
            with {run_lock}:
                con = duckdb.connect({str(layout.database)!r})
                print("locked", flush=True)
                sys.stdin.readline()
                con.close()
            """),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout.readline().strip() == "locked"
        yield process
    finally:
        release(process)
        assert process.wait(timeout=60) == 0


def release(process: subprocess.Popen) -> None:
    if not process.stdin.closed:
        process.stdin.write("release\n")
        process.stdin.close()


def list_while_held(root: Path, process: subprocess.Popen) -> tuple[str, str, str]:
    """`lyra task list` while ``process`` holds the database: the file is released once the command
    has said it waits (or after a minute); its stdout, the line it said, and all of its stderr."""
    listing = subprocess.Popen(
        [sys.executable, "-m", "lyra_tools.cli", "task", "list", "--home", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    timer = threading.Timer(60, release, [process])
    timer.start()
    try:
        said = next((line for line in listing.stderr if "waiting for" in line), "")
        release(process)
        out, rest = listing.communicate(timeout=120)
    finally:
        timer.cancel()
    assert listing.returncode == 0, said + rest
    return out, said, said + rest


@pytest.fixture
def home(tmp_path) -> tuple[Path, str]:
    home = tmp_path / "home"
    return home, LyraStore.at(home).create_task("Does vitamin D reduce fractures?").id


def test_a_read_that_waits_for_a_run_says_which_task_s_run_holds_the_database(home):
    root, task_id = home
    with holder(root, task_id) as process:
        out, said, stderr = list_while_held(root, process)
    assert task_id in out  # it answered once the file was free
    assert said.startswith("waiting for the home's database") and stderr.count("waiting for") == 1
    if Path("/proc/locks").exists():
        assert f"the run of task {task_id} (process {process.pid}) holds it locked" in said
    else:
        assert f"process {process.pid}" in said


def test_a_read_that_waits_for_another_process_names_it(home):
    root, task_id = home
    with holder(root) as process:
        out, said, _ = list_while_held(root, process)
    assert task_id in out
    assert f"process {process.pid}" in said and "holds it locked" in said
    assert "the run of task" not in said


def test_a_short_wait_says_nothing_and_a_long_one_says_it_once(home):
    root, _ = home
    store, said = LyraStore.at(root), []
    notify_waits(said.append)
    try:
        with holder(root) as process:
            threading.Timer(0.05, release, [process]).start()
            store.list_tasks()
        assert said == []
        with holder(root) as process:
            threading.Timer(NOTICE_AFTER_S * 3, release, [process]).start()
            store.list_tasks()
        assert len(said) == 1 and f"process {process.pid}" in said[0]
    finally:
        notify_waits(None)
