"""How every Lyra process waits for the database file another one holds.

DuckDB lets one process hold ``lyra.duckdb`` at a time, so the pipeline, the CLI and the MCP
server all meet lock errors as a matter of course. This module is the one place that tells such a
conflict (worth waiting out) from a real error, and the one retry policy they all wait with: the
store's opens and transactions (:mod:`lyra_resources.store.lyra_store`) and the MCP server's ATTACH
(:mod:`lyra_tools.mcp.server_store`).

Every wait is counted per process (:func:`lock_waits`), so a run whose steps share the file from
many worker processes can report how often they met each other.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import TypeVar

import duckdb
from pydantic import BaseModel, ConfigDict, Field

T = TypeVar("T")

# DuckDB's words for "another process holds the file lock" (POSIX and Windows wordings)
_LOCK_WORDS = ("lock", "resource temporarily unavailable")
# what the file system says when it refuses a write (lyra_resources.store.faults names each fault)
_FILE_SYSTEM_REFUSALS = (
    "permission denied",
    "operation not permitted",
    "read-only file system",
    "no space left on device",
    "disk is full",
)


class StoreError(RuntimeError):
    """A store operation failed for a reason the caller should see."""


class StoreBusyError(StoreError):
    """Another process kept the database locked for longer than the store waits."""


class LockWaits(BaseModel):
    """What this process's store operations met of other holders of the database, so far."""

    conflicts: int = Field(
        0, description="attempts that met a lock conflict and were tried again after a sleep"
    )
    write_conflicts: int = Field(
        0,
        description="of those, write-write conflicts between transactions; the "
        "rest found the file or an attachment held",
    )
    gave_up: int = Field(0, description="operations that stayed locked past their timeout (StoreBusyError)")
    waited_s: float = Field(0.0, description="seconds slept between attempts")

    def since(self, earlier: LockWaits) -> LockWaits:
        """The waits counted after ``earlier`` (a previous :func:`lock_waits` of this process)."""
        return LockWaits(
            conflicts=self.conflicts - earlier.conflicts,
            write_conflicts=self.write_conflicts - earlier.write_conflicts,
            gave_up=self.gave_up - earlier.gave_up,
            waited_s=round(self.waited_s - earlier.waited_s, 6),
        )

    def __add__(self, other: LockWaits) -> LockWaits:
        return LockWaits(
            conflicts=self.conflicts + other.conflicts,
            write_conflicts=self.write_conflicts + other.write_conflicts,
            gave_up=self.gave_up + other.gave_up,
            waited_s=round(self.waited_s + other.waited_s, 6),
        )


_waits = LockWaits()
_waits_lock = threading.Lock()


def lock_waits() -> LockWaits:
    """A copy of this process's counts since it started."""
    with _waits_lock:
        return _waits.model_copy()


def _count(exc: BaseException, *, gave_up: bool = False, slept_s: float = 0.0) -> None:
    global _waits
    with _waits_lock:
        _waits = _waits + LockWaits(
            conflicts=0 if gave_up else 1,
            write_conflicts=int(
                not gave_up and (isinstance(exc, duckdb.TransactionException) or _postgres_conflict(exc))
            ),
            gave_up=int(gave_up),
            waited_s=slept_s,
        )


def is_lock_conflict(exc: BaseException) -> bool:
    """Whether ``exc`` means "someone else has the database right now", so trying again later can succeed.

    That is a write-write conflict between transactions, the file lock another process holds, or
    (for an in-memory instance that ATTACHes the file) this process having it open through another
    DuckDB instance. Any other error (a missing table, bad SQL) is real and must not be waited on.
    """
    if isinstance(exc, duckdb.TransactionException):
        # a commit the file system refused (its log file cannot be made: a home that cannot be written,
        # a full disk) is no conflict: no later attempt gets past it
        return not any(word in str(exc).lower() for word in _FILE_SYSTEM_REFUSALS)
    if _postgres_conflict(exc):
        return True
    if isinstance(exc, duckdb.IOException):
        return any(word in str(exc).lower() for word in _LOCK_WORDS)
    return isinstance(exc, duckdb.ResourceInUseException) and "already attached" in str(exc).lower()


# serialization_failure, deadlock_detected, lock_not_available: a later attempt can get past them
_POSTGRES_CONFLICTS = {"40001", "40P01", "55P03"}


def _postgres_conflict(exc: BaseException) -> bool:
    """A write conflict in the Postgres store (read by SQLSTATE: psycopg2 is only there in the cluster profile)."""
    return getattr(exc, "pgcode", None) in _POSTGRES_CONFLICTS


class RetryPolicy(BaseModel):
    """Jittered exponential backoff while the database is locked, up to a deadline."""

    model_config = ConfigDict(frozen=True)

    first_delay_s: float = Field(0.02, gt=0, description="sleep after the first conflict (before jitter)")
    max_delay_s: float = Field(0.25, gt=0, description="longest sleep between two attempts (before jitter)")

    def run(self, attempt: Callable[[], T], *, timeout_s: float, what: object) -> T:
        """Call ``attempt`` until it returns. A lock conflict (:func:`is_lock_conflict`) is retried
        until ``timeout_s`` has passed and then raised as :class:`StoreBusyError` naming ``what``
        (the database); any other exception propagates at once. A wait past ``NOTICE_AFTER_S`` is
        said once, naming the holder, to the notice :func:`notify_waits` set (if any)."""
        started = time.monotonic()
        deadline = started + timeout_s
        delay = self.first_delay_s
        noticed = False
        while True:
            try:
                return attempt()
            except Exception as exc:
                if not is_lock_conflict(exc):
                    raise
                if not noticed and (waited := time.monotonic() - started) >= NOTICE_AFTER_S:
                    noticed = _notice_wait(exc, what, waited)
                if time.monotonic() > deadline:
                    _count(exc, gave_up=True)
                    raise StoreBusyError(
                        f"{what} stayed locked by another process for {timeout_s:.0f}s: {exc}"
                    ) from exc
                # jitter: processes that met the same lock must not all retry at the same instant
                sleep_s = delay * (1 + random.random())
                _count(exc, slept_s=sleep_s)
            time.sleep(sleep_s)
            delay = min(delay * 2, self.max_delay_s)


STORE_RETRY = RetryPolicy()
"""The policy the store, the CLI and the MCP server share."""

NOTICE_AFTER_S = 1.0  # a wait for another process's lock is said once it has lasted this long
NOTICE_EVERY_S = 30.0  # waits for one holder are said at most this often (a run's many operations)
_notice: Callable[[str], None] | None = None
_noticed: dict[int | None, float] = {}  # holder's process → when a wait for it was last said


def notify_waits(notice: Callable[[str], None] | None) -> None:
    """Have ``notice`` hear one line when a store operation of this process has waited
    ``NOTICE_AFTER_S`` for another process's lock, naming the holder ("… the run of task t-1
    (process 1234) holds it locked"), at most once per ``NOTICE_EVERY_S`` for one holder; the CLI
    prints it on standard error. None: say nothing (the default)."""
    global _notice
    _notice = notice
    _noticed.clear()


def _notice_wait(exc: Exception, what: object, waited_s: float) -> bool:
    """Say the wait to the notice set, if any; whether the wait is now said."""
    if _notice is None:
        return False
    from lyra_resources.store.lock_holders import holder_pid, waiting_line

    pid, now = holder_pid(exc), time.monotonic()
    if now - _noticed.get(pid, -NOTICE_EVERY_S) >= NOTICE_EVERY_S:
        _noticed[pid] = now
        _notice(waiting_line(exc, what, waited_s))
    return True
