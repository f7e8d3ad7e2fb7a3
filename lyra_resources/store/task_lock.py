"""Which tasks a process of this machine is running, so that ``lyra task delete`` never removes a
task under its run.

Dagster's run record says a run is in progress only between the moment Dagster records it and the
moment it ends; the command that runs a task is at work before (checking, handing over) and after
(its summary, its verify results). The process running a task holds a shared lock on
``<home>/running/<task>.lock`` (``HomeLayout.run_lock``) for all of that time; a delete takes it
exclusively, without waiting, and refuses when it cannot. The kernel releases a lock when its process
ends, however it ends, so a killed run never leaves its task undeletable.
"""

from __future__ import annotations

import contextlib
import fcntl
import threading
from collections.abc import Iterator

from lyra_resources.home import HomeLayout

_held: dict[str, int] = {}  # lock file → how many nested holders in this process
_held_lock = threading.Lock()


class TaskRunningError(RuntimeError):
    """The task is being run by a process of this machine."""


@contextlib.contextmanager
def running(layout: HomeLayout, task_id: str) -> Iterator[None]:
    """Hold the task's run lock (shared) for the block; nested holds in one process are one."""
    path = layout.run_lock(task_id)
    key = str(path)
    with _held_lock:
        nested = _held.get(key, 0) > 0
        _held[key] = _held.get(key, 0) + 1
    try:
        if nested:
            yield
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_SH)  # waits only while a delete of the task holds it
            yield
    finally:
        with _held_lock:
            _held[key] -= 1
            if not _held[key]:
                del _held[key]


@contextlib.contextmanager
def not_running(layout: HomeLayout, task_id: str) -> Iterator[None]:
    """Hold the task's run lock exclusively for the block (a delete), or raise TaskRunningError at
    once where a process holds it; the lock file is removed with the task."""
    path = layout.run_lock(task_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise TaskRunningError(
                f"task {task_id} is running (its run, or the command that started it, is still "
                f"at work); stop it first with `lyra task stop {task_id}`"
            ) from None
        try:
            yield
        finally:
            path.unlink(missing_ok=True)


def run_in_progress(layout: HomeLayout, task_id: str) -> bool:
    """Whether a process of this machine holds the task's run lock now: it is running the task, its
    row reads running, and that process records how the run ends. Tested without waiting (the lock
    is taken for an instant where it is free) and without creating anything."""
    try:
        handle = open(layout.run_lock(task_id))
    except OSError:  # no lock file (no run of this machine yet), or a home that cannot be read
        return False
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False
