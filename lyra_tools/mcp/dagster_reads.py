"""The Dagster instance as get_status reads it in a long-lived server: the latest run of a task and
its event log, read again only when Dagster's files changed.

On a local home Dagster keeps its runs in SQLite files under ``<home>/dagster/history``: ``runs.db``
(every run and its status), ``runs/index.db`` and one ``runs/<run id>.db`` per run's event log. A
status answer asks each of them once (~15 ms); most tasks' runs ended long ago, so the answer is
kept with the files' (size, mtime) and given again while they stand. A file changed less than
:data:`QUIET_S` ago is not trusted to show a later write (its mtime ticks coarsely), so nothing
read then is kept. A cluster's instance (Postgres) is read every time.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

QUIET_S = 1.0
KEPT = 2048  # answers kept (a few hundred bytes each)


class CachedRuns:
    """``instance`` with ``get_run_records`` and ``get_records_for_run`` answered from what was read
    while the files under ``history`` stand; every other attribute is the instance's own."""

    def __init__(self, instance: Any, history: Path) -> None:
        self._instance, self._history = instance, history
        self._kept: OrderedDict[str, tuple[tuple[Any, ...], Any]] = OrderedDict()
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._instance, name)

    def get_run_records(self, *args: Any, **kwargs: Any) -> Any:
        files = ("runs.db", "runs.db-wal", "runs/index.db", "runs/index.db-wal")
        return self._read(
            ("runs", args, kwargs), files, lambda: self._instance.get_run_records(*args, **kwargs)
        )

    def get_records_for_run(self, run_id: str, *args: Any, **kwargs: Any) -> Any:
        files = ("runs.db", "runs.db-wal", f"runs/{run_id}.db", f"runs/{run_id}.db-wal")
        return self._read(
            ("events", run_id, args, kwargs),
            files,
            lambda: self._instance.get_records_for_run(run_id, *args, **kwargs),
        )

    def _read(self, call: tuple[Any, ...], files: tuple[str, ...], read: Any) -> Any:
        key = repr(call)
        stamp, quiet = self._stamp(files)
        with self._lock:
            kept = self._kept.get(key)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        answer = read()
        if quiet:
            with self._lock:
                self._kept[key] = (stamp, answer)
                self._kept.move_to_end(key)
                while len(self._kept) > KEPT:
                    self._kept.popitem(last=False)
        return answer

    def _stamp(self, files: tuple[str, ...]) -> tuple[tuple[Any, ...], bool]:
        """The files' (inode, size, mtime) and whether all of them have been quiet for QUIET_S."""
        now, stamp, quiet = time.time_ns(), [], True
        for name in files:
            try:
                st = os.stat(self._history / name)
            except OSError:
                stamp.append(None)
                continue
            stamp.append((st.st_ino, st.st_size, st.st_mtime_ns))
            quiet &= now - st.st_mtime_ns > QUIET_S * 1e9
        return tuple(stamp), quiet


def cached_runs(instance: Any, dagster_home: Path) -> Any:
    """``instance`` with its run reads kept (:class:`CachedRuns`) where its runs are in the home's
    SQLite files; else ``instance`` itself."""
    history = dagster_home / "history"
    storage = type(getattr(instance, "run_storage", None)).__name__
    if storage != "SqliteRunStorage" or not (history / "runs.db").exists():
        return instance
    return CachedRuns(instance, history)
