"""Who holds the home's DuckDB file while a command waits for it, in one line a person can act on.

DuckDB's lock error names the holding process ("Conflicting lock is held in … (PID 1234)"). A
process running a task of the home holds that task's run lock (``task_lock``, ``running/<task>.lock``),
so the kernel's table of file locks (``/proc/locks``) tells which task's run it is; any other
process is named by its command line (``/proc/<pid>/cmdline``), e.g. `lyra corpus embed`. Where
neither can be read (not Linux, another user's process) the line names the process alone.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_HOLDER = re.compile(r"\(PID (\d+)\)")
_COMMAND_CHARS = 80  # a command line shown longer than this is cut
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def holder_pid(exc: BaseException) -> int | None:
    """The process DuckDB says holds the file, from its lock error; None when it names none."""
    found = _HOLDER.search(str(exc))
    return int(found.group(1)) if found else None


def tasks_run_by(pid: int, home: Path) -> list[str]:
    """The tasks of ``home`` whose run lock ``pid`` holds (read from ``/proc/locks``; [] where it cannot be)."""
    running = home / "running"
    try:
        inodes = {
            path.stat().st_ino: path.stem for path in running.glob("*.lock") if path.stem != "foreground"
        }
        table = Path("/proc/locks").read_text()
    except OSError:
        return []
    tasks = []
    for line in table.splitlines():
        fields = line.split()
        # "1: FLOCK  ADVISORY  READ  1234 fe:00:2156565 0 EOF": the holder and major:minor:inode
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[4] == str(pid):
            inode = fields[5].rsplit(":", 1)[-1]
            if inode.isdigit() and int(inode) in inodes:
                tasks.append(inodes[int(inode)])
    return sorted(set(tasks))


def command_of(pid: int) -> str | None:
    """The command line of ``pid``, printable and cut to a line; None where it cannot be read."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    args = [a.decode(errors="replace") for a in raw.split(b"\0") if a]
    if not args:
        return None
    if len(args) > 2 and Path(args[0]).name.startswith("python") and args[1] == "-m":
        args = [args[2].split(".")[0], *args[3:]]  # python -m lyra_tools.cli …: the command it runs
    elif len(args) > 1 and Path(args[0]).name.startswith("python"):
        args = args[1:]
    args[0] = Path(args[0]).name
    if args[0] == "lyra_tools":
        args[0] = "lyra"
    text = _UNPRINTABLE.sub("?", " ".join(args))
    return text if len(text) <= _COMMAND_CHARS else text[: _COMMAND_CHARS - 1] + "…"


def holder(exc: BaseException, database: str | os.PathLike[str]) -> str:
    """Who holds ``database`` by ``exc`` (DuckDB's lock error), in words: "the run of task t-1
    (process 1234)", "process 1234 (lyra corpus embed …)", "process 1234", or "another process"."""
    pid = holder_pid(exc)
    if pid is None:
        return "another process"
    if pid == os.getpid():
        return "this process (another of its connections)"
    tasks = tasks_run_by(pid, Path(database).parent)
    if tasks:
        return f"the run of task {', '.join(tasks)} (process {pid})"
    command = command_of(pid)
    return f"process {pid} ({command})" if command else f"process {pid}"


def waiting_line(exc: BaseException, database: object, waited_s: float) -> str:
    """The line a command says when it has waited ``waited_s`` for ``database``'s lock."""
    return (
        f"waiting for the home's database {database}: {holder(exc, str(database))} holds it locked "
        f"(waited {waited_s:.1f} s so far; this goes on as soon as it is free)"
    )
