"""Store faults: what went wrong with the home's files, not with Lyra, said as such.

A database file that is empty, cut short, fails its checksums or is a folder, a home on a read-only
file system or that may not be written (no permission, an immutable file or folder: EACCES, EPERM)
and a full disk are the user's to mend. :func:`store_fault` reads a DuckDB error or an ``OSError``
and, where it is one of these, gives a :class:`StoreFaultError` naming the fault, the file and what
to do; any other error is left alone (a real bug stays one). The store raises them where it opens
and queries the database (:mod:`lyra_resources.store.lyra_store`), and every command shows them as
its one error line (docs/guarantees.md, "Store faults").
"""

from __future__ import annotations

import errno
import stat
from pathlib import Path

from lyra_resources.store.locks import StoreError

# DuckDB's words for each fault (its messages carry no error code)
_NOT_DUCKDB = "not a valid duckdb database file"
_CUT_SHORT = "could not read enough bytes"
_IS_FOLDER = "is a directory"  # EISDIR: lyra.duckdb is a folder
_CORRUPT = ("corrupt database file", "checksum")
_NO_SPACE = ("no space left on device", "disk is full", "database or disk is full")
_READ_ONLY_FS = ("read-only file system",)
_NO_PERMISSION = ("permission denied", "operation not permitted")  # EACCES, EPERM (an immutable file)
READ_ONLY_MODE = "read-only mode"  # a write through a connection opened read-only


class StoreFaultError(StoreError):
    """The home's files cannot be read or written for a reason outside Lyra (a damaged database
    file, a read-only home, a full disk); the message says which file and what to do."""


def _words(exc: BaseException) -> str:
    return str(exc).lower()


def is_read_only_refusal(exc: BaseException) -> bool:
    """Whether opening the database for writing failed only because the home cannot be written
    (a read-only file system, no write permission): it can still be opened to read."""
    if isinstance(exc, OSError):
        return exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM)
    text = _words(exc)
    return any(w in text for w in (*_READ_ONLY_FS, *_NO_PERMISSION))


def is_no_space(exc: BaseException) -> bool:
    """Whether ``exc`` is a write that failed because the device is full (an ``OSError`` ENOSPC or
    EDQUOT, or DuckDB's or SQLite's words for it)."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = _words(exc)
    return any(w in text for w in _NO_SPACE)


def no_space_message(where: Path | str) -> str:
    """The line for a write that found the device full."""
    return f"no space left on the device holding {where}; free space there and run the command again"


def _damaged(database: Path, what: str) -> StoreFaultError:
    return StoreFaultError(
        f"the store {database} {what}; move it aside and restore it from a backup, or let the next command "
        f"start a new, empty store; each task's tables are also kept in the Parquet files under "
        f"{database.parent / 'parquet'}"
    )


def store_file_fault(database: Path) -> StoreFaultError | None:
    """The fault of a store path that exists but is no regular file (a folder, a pipe, a device),
    which DuckDB would fail on or wait on for ever; None where it is a file or missing."""
    try:
        mode = database.stat().st_mode
    except OSError:  # missing (a new store), or a fault the open names itself
        return None
    if stat.S_ISREG(mode):
        return None
    kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a pipe or a device)"
    return _damaged(database, f"is {kind}, not a DuckDB database file")


def store_fault(
    exc: BaseException, database: Path, read_only_because: str | None = None
) -> StoreFaultError | None:
    """The fault ``exc`` shows in the store whose DuckDB file is ``database``, or None where it is
    none of them (a bug, a lock conflict). ``read_only_because`` is why this process opened the
    file read-only, where it did."""
    home = database.parent
    text = _words(exc)
    damaged = None
    if _IS_FOLDER in text or (isinstance(exc, OSError) and exc.errno == errno.EISDIR):
        damaged = "is a folder, not a DuckDB database file"
    elif _NOT_DUCKDB in text:
        damaged = "is not a DuckDB database (empty, or overwritten by another file)"
    elif _CUT_SHORT in text:
        damaged = "is cut short (truncated: a copy or a disk that stopped part way)"
    elif any(w in text for w in _CORRUPT):
        damaged = "is corrupt (a block fails its checksum)"
    if damaged is not None:
        return _damaged(database, damaged)
    if is_no_space(exc):
        return StoreFaultError(no_space_message(home))
    if READ_ONLY_MODE in text or is_read_only_refusal(exc):
        # the file system's words for it ("Operation not permitted"), not DuckDB's whole message
        words = exc.strerror if isinstance(exc, OSError) and exc.strerror else " ".join(str(exc).split())
        why = read_only_because or words.split(": ")[-1][:160]
        return StoreFaultError(
            f"the home {home} cannot be written ({why}); commands that only read it (task list, "
            "claims, evidence, export to a file outside it) still work"
        )
    return None
