"""The background embedder (`lyra corpus embed`, which a task starts after its answer) yields the CPU
to the task runs a person waits for: on 2 cores a niced process still takes one of them, and a second
question asked while the rest of the corpus is embedded would wait for both.

Every task run holds a shared lock on ``<home>/running/foreground.lock`` (``foreground``) for as long
as it runs; the embedder, between two chunks of papers, waits until no run holds it
(``wait_for_idle``). The kernel releases a lock when its process ends, however it ends, so a killed
run never leaves the embedder waiting.
"""

from __future__ import annotations

import contextlib
import fcntl
import time
from collections.abc import Callable, Iterator

from lyra_resources.home import HomeLayout


@contextlib.contextmanager
def foreground(layout: HomeLayout) -> Iterator[None]:
    """Hold the home's foreground lock (shared: runs side by side hold it together) for the block."""
    path = layout.foreground_lock
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH)  # waits only for the instant an idle check holds it
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def runs_in_progress(layout: HomeLayout) -> bool:
    """Whether a task run of this home holds the foreground lock now."""
    path = layout.foreground_lock
    if not path.exists():
        return False
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def wait_for_idle(
    layout: HomeLayout,
    poll_s: float = 1.0,
    on_wait: Callable[[], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> float:
    """Return once no task run of the home is in progress; the seconds waited. ``on_wait`` is
    called once when the wait begins (a line for the log)."""
    waited = 0.0
    while runs_in_progress(layout):
        if not waited and on_wait:
            on_wait()
        sleep(poll_s)
        waited += poll_s
    return waited
