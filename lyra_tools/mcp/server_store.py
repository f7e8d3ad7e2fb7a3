"""The store as Lyra's long-lived MCP server uses it: one in-memory DuckDB instance that ATTACHes
the database file only while calls use it, so a pipeline run in another process can write between
calls exactly as with the store's own short-lived connections. (A store in Postgres needs none of
this: its sessions are the plain store's.)"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

import duckdb
from pydantic import PrivateAttr

from lyra_resources.store.locks import STORE_RETRY
from lyra_resources.store.lyra_store import LyraStore


class _Attachment:
    """One in-memory DuckDB instance that ATTACHes the Lyra database while calls use it.

    Creating a DuckDB instance costs ~15 ms (in-memory ones too), more than most tool answers;
    ATTACH/DETACH of the file on a living instance costs ~2 ms and takes/releases the same file
    lock. The file is attached while at least one call holds a cursor and detached as soon as the
    last one finishes, so between calls another process (a pipeline run) can write, exactly as
    with the store's own short-lived connections. Every read and write of this process goes
    through it: two instances of one file in one process must never coexist.
    """

    def __init__(self, path: Path, busy_timeout_s: float) -> None:
        self.path, self.busy_timeout_s = path, busy_timeout_s
        # one thread: answers are small scans, and on a busy machine thread hand-offs cost more than they save
        self._instance = duckdb.connect(":memory:", config={"threads": 1})
        self._cond = threading.Condition()
        self._users = 0

    def close(self) -> None:
        with self._cond:
            if self._users == 0:
                self._instance.close()

    def _attach(self) -> None:
        """ATTACH the file, waiting with the store's policy while another process (or a plain store
        in this one) holds it."""
        quoted = str(self.path).replace("'", "''")
        STORE_RETRY.run(
            lambda: self._instance.execute(f"ATTACH '{quoted}' AS lyra"),
            timeout_s=self.busy_timeout_s,
            what=self.path,
        )

    @contextlib.contextmanager
    def cursor(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self._cond:
            if self._users == 0:
                self._attach()
            self._users += 1
            try:
                cursor = self._instance.cursor()
                cursor.execute("USE lyra")
            except BaseException:
                self._release()
                raise
        try:
            yield cursor
        finally:
            cursor.close()
            with self._cond:
                self._release()

    def _release(self) -> None:
        self._users -= 1
        if self._users == 0:
            self._instance.execute("DETACH lyra")
            self._cond.notify_all()

    @contextlib.contextmanager
    def detached(self) -> Iterator[None]:
        """Wait until no call uses the file and keep it detached meanwhile, for code that opens the
        database with a plain LyraStore (the runner's stop_task)."""
        with self._cond:
            while self._users:
                self._cond.wait()
            yield


class ServerStore(LyraStore):
    """The store as the long-lived server uses it: same API and locking behaviour, cheap opens."""

    _attachment: _Attachment | None = PrivateAttr(default=None)
    _attach_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def _shared(self) -> _Attachment:
        self._ensure_schema()
        with self._attach_lock:
            if self._attachment is None:
                self._attachment = _Attachment(self.layout.database, self.busy_timeout_s)
            return self._attachment

    @contextlib.contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        if self.url:  # the Postgres store: sessions of their own, no file to share
            with super().connect() as conn:
                yield conn
            return
        with self._shared().cursor() as cursor:
            yield cursor

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Keep the database attached for a whole read call, so that its queries share one ATTACH
        (each costs ~2 ms; a status answer makes seven). Never around code that needs
        :meth:`exclusive`, which waits for every holder."""
        with self.connect():
            yield

    def close(self) -> None:
        """Close the in-memory instance (at exit, before the interpreter tears duckdb down)."""
        with self._attach_lock:
            if self._attachment is not None:
                self._attachment.close()
                self._attachment = None

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Let code that opens the file on its own (a plain LyraStore) run without a conflict."""
        if self.url:
            yield
            return
        with self._shared().detached():
            yield
