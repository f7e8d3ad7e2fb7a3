"""The implicit relevance signal: every fragment an agent is shown is recorded as 'returned'.

The MCP server queues these signals in a ``ReturnsRecorder`` that writes them in the background
(``lyra_resources.store.relevance_signals.record_returns``), so a read is never slowed by a durable
write; fragments returned often without a useful vote lose ranking weight (see
``lyra_core.feedback.relevance_multiplier``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

import duckdb

from lyra_resources.store.lyra_store import LyraStore, StoreError
from lyra_resources.store.relevance_signals import record_returns

log = logging.getLogger(__name__)


class ReturnsRecorder:
    """Buffers 'returned' signals and writes them in the background, one transaction a flush.

    A durable write costs tens of milliseconds (WAL sync, then a checkpoint when the file is
    released), more than the read it would be attached to; so get_claim_evidence only queues its
    signals here. Pending signals are written every ``interval_s`` seconds, when the server
    session ends and when the server stops; a crash can lose the last interval's worth, which
    only delays the ≥ 5 returns a fragment needs before its ranking weight moves.
    """

    def __init__(self, store: LyraStore, interval_s: float = 2.0) -> None:
        self.store, self.interval_s = store, interval_s
        self._pending: list[tuple[str, str, str, str]] = []
        self._lock = threading.Lock()
        self._flush_lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

    def add(self, task_id: str, fragment_ids: Sequence[str], query_id: str, query: str) -> None:
        with self._lock:
            self._pending += [(task_id, fid, query_id, query) for fid in dict.fromkeys(fragment_ids)]
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="lyra-returns", daemon=True)
                self._thread.start()

    def flush(self) -> int:
        """Write every pending signal now; on failure they stay queued for the next flush."""
        with self._flush_lock:
            with self._lock:
                rows, self._pending = self._pending, []
            try:
                return record_returns(self.store, rows)
            except BaseException:
                with self._lock:
                    self._pending = rows + self._pending
                raise

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop the background writer after a last flush (the server calls it at exit)."""
        self._closed = True
        self._wake.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout_s)
        self.flush()

    def _run(self) -> None:
        while True:
            self._wake.wait(self.interval_s)
            self._wake.clear()
            try:
                self.flush()
            except (duckdb.Error, StoreError) as exc:  # keep the signals and try again next interval
                log.warning("relevance signals not written yet: %s", exc)
            with self._lock:
                if not self._pending or self._closed:
                    self._thread = None
                    return
