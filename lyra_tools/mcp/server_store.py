"""The store as Lyra's long-lived MCP server uses it: one in-memory DuckDB instance that ATTACHes
the database file only while calls use it, so a pipeline run in another process can write between
calls exactly as with the store's own short-lived connections; read tools are answered from the
in-memory copies of :mod:`.snapshot` where they can be, without the file. (A store in Postgres
needs none of this: its sessions are the plain store's.)"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

import duckdb
from pydantic import PrivateAttr

from lyra_resources.store.locks import STORE_RETRY
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.snapshot_reads import NotInSnapshot, SnapshotReader


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

    snapshot_reads: bool = True  # read tools from the in-memory copies (False: every call attaches the file)

    _attachment: _Attachment | None = PrivateAttr(default=None)
    _attach_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _snapshot: SnapshotReader | None = PrivateAttr(default=None)
    _local: threading.local = PrivateAttr(default_factory=threading.local)

    def _shared(self) -> _Attachment:
        self._ensure_schema()
        with self._attach_lock:
            if self._attachment is None:
                self._attachment = _Attachment(self.layout.database, self.busy_timeout_s)
            return self._attachment

    def _reader(self) -> SnapshotReader:
        attachment = self._shared()
        with self._attach_lock:
            if self._snapshot is None:
                self._snapshot = SnapshotReader(
                    self.layout.database, self.layout.parquet, attachment._instance, attachment.cursor
                )
            return self._snapshot

    @contextlib.contextmanager
    def connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        if self.url:  # the Postgres store: sessions of their own, no file to share
            with super().connect() as conn:
                yield conn
            return
        reading = getattr(self._local, "reading", None)
        if reading is not None:  # a read tool's call: the in-memory copy (NotInSnapshot: the file)
            with self._reader().cursor(reading[0]) as cursor:
                self._local.generation = cursor.generation
                yield cursor  # type: ignore[misc]
            return
        with self._shared().cursor() as cursor:
            yield cursor

    @contextlib.contextmanager
    def reading(self, task_id: str | None) -> Iterator[bool]:
        """For this thread's reads until the block ends: the in-memory copy of the home's small
        tables and of ``task_id``'s generation; yields whether it is used (not for Postgres, nor
        with ``snapshot_reads`` off). A read the copy cannot answer raises NotInSnapshot."""
        if self.url or not self.snapshot_reads or getattr(self._local, "reading", None) is not None:
            yield False
            return
        self._local.reading, self._local.generation = (task_id,), None
        try:
            yield True
        finally:
            self._local.reading = self._local.generation = None

    def transaction(self, work, *, retries_s: float | None = None):  # type: ignore[no-untyped-def]
        """Writes always reach the file, also from within a read (a task's status synced with its run)."""
        reading = getattr(self._local, "reading", None)
        self._local.reading = None
        try:
            return super().transaction(work, retries_s=retries_s)
        finally:
            self._local.reading = reading

    def row_counts(self, task_id: str) -> dict[str, int]:
        """Within a read: the counts the task's generation recorded, not counted again."""
        if getattr(self._local, "reading", None) is not None:
            with self.connect():
                counts = self._reader().rows(self._local.generation, task_id)
            if counts is not None:
                return counts
        return super().row_counts(task_id)

    def task_of_claim(self, claim_id: str) -> str | None:
        """The task holding a claim, from the in-memory claim index (None: look it up the usual way)."""
        if self.url or not self.snapshot_reads:
            return None
        return self._reader().task_of_claim(claim_id)

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
            if self._snapshot is not None:
                self._snapshot.close()
                self._snapshot = None
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


__all__ = ["NotInSnapshot", "ServerStore"]
