"""On-disk cache of academic API answers, keyed by method + URL (+ the body of a POST).

Why a small cache of our own rather than hishel: hishel implements HTTP caching (RFC 9111), so
it keeps and reuses only what the server's Cache-Control and validators allow. Lyra wants
record-and-replay instead: every good answer is kept and served again on a re-run (so the run is
reproducible) and when the network is gone (so it works offline), whatever the headers say —
and S2 and OpenAlex send no validators to revalidate with anyway. That takes one JSON file per
answer under ``<home>/cache/http/<api>/``; an age limit (``sources.cache_ttl_days``) decides when
an answer is asked again, and a stale answer is still served when the API cannot be reached.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from pathlib import Path

from pydantic import BaseModel, ValidationError

from lyra_resources.files import write_cache_file

log = logging.getLogger(__name__)

# Only answers that a re-run should see again: 200 and "not found".
CACHEABLE_STATUSES = frozenset({200, 404})


class CachedResponse(BaseModel):
    method: str
    url: str
    status: int
    content_type: str | None = None
    body: str
    stored_at: float


class HttpCache:
    """Answers stored as ``<root>/<key[:2]>/<key>.json``; writes are atomic (temp file + rename)."""

    def __init__(self, root: str | os.PathLike[str], ttl_s: float | None = None) -> None:
        self.root = Path(root)
        self.ttl_s = ttl_s or None  # 0 or None: answers never go stale

    @staticmethod
    def key(method: str, url: str, body: bytes | None = None) -> str:
        digest = hashlib.sha256(f"{method.upper()}\n{url}\n".encode())
        digest.update(hashlib.sha256(body or b"").digest())
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> tuple[CachedResponse, bool] | None:
        """The stored answer and whether it is still fresh, or None."""
        path = self._path(key)
        try:
            entry = CachedResponse.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValidationError, ValueError) as exc:  # a truncated or foreign file: ask again
            log.warning("ignoring unreadable HTTP cache entry %s: %s", path, exc)
            return None
        fresh = self.ttl_s is None or time.time() - entry.stored_at <= self.ttl_s
        return entry, fresh

    def put(self, key: str, entry: CachedResponse) -> None:
        if entry.status not in CACHEABLE_STATUSES:
            return
        write_cache_file(self._path(key), entry.model_dump_json().encode(), "HTTP cache entry")
