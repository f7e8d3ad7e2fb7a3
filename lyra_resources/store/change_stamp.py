"""A stamp beside the home's DuckDB file that changes whenever the database may have changed, so a
long-lived reader (the MCP server) can tell in microseconds, without opening the file and so without
its lock, whether what it read earlier still stands.

Every transaction the store commits writes a fresh token into ``lyra.duckdb.changes`` right after
its COMMIT. A reader compares the token together with the database file's and its WAL's
(inode, size, mtime): the token tells apart two writes within one tick of the file system's clock,
the file's own times catch a writer that went around :meth:`LyraStore.transaction` (an autocommit
UPDATE on a plain connection). A reader takes the stamp *before* it reads the database, so a write
that lands while it reads changes the stamp it compares with next time.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

SUFFIX = ".changes"

Stamp = tuple[object, ...]


def stamp_file(database: Path) -> Path:
    return database.with_name(database.name + SUFFIX)


def mark_changed(database: Path) -> None:
    """Say that ``database`` changed: a new token, switched in with one rename (never half written).
    A home that cannot be written has no writers to announce, so a failure is ignored."""
    target = stamp_file(database)
    aside = target.with_name(f"{target.name}.{uuid.uuid4().hex[:8]}")  # the store's, as named
    try:
        aside.write_text(uuid.uuid4().hex, encoding="ascii")
        os.replace(aside, target)
    except OSError:
        aside.unlink(missing_ok=True)


def _file(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def read_stamp(database: Path) -> Stamp:
    """What identifies the database's state now: equal stamps, no change in between."""
    try:
        token = stamp_file(database).read_text(encoding="ascii")
    except OSError:
        token = None
    return token, _file(database), _file(database.with_name(database.name + ".wal"))
