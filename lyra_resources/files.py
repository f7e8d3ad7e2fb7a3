"""Writing cache files so that a concurrent reader never sees half of one."""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)


def write_cache_file(path: Path, data: bytes, what: str) -> bool:
    """Write ``data`` to a temporary file beside ``path`` and rename it into place. A cache that
    cannot be written (read-only home, full disk) must not fail a run: it is logged and skipped."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    except OSError as exc:
        log.warning("cannot write %s under %s: %s", what, path.parent, exc)
        return False
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        return True
    except OSError as exc:
        log.warning("cannot write %s %s: %s", what, path, exc)
        return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def replace_text(path: Path, text: str, mode: int = 0o644) -> None:
    """``path`` holds ``text`` whole or is left as it was: written beside it with ``mode`` (not
    mkstemp's 0600 unless asked), then renamed into place, so a reader never sees half of it. Errors
    are raised: unlike a cache, the caller needs the file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
