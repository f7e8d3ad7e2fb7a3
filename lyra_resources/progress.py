"""A progress channel from Lyra's long loops (embedding batches, NLI pairs) to whoever displays them.

A loop opens ``track("NLI", total, "pairs")`` and calls ``advance(n)`` after each batch; every
change reaches the sink installed with ``reporting_to`` as a ``StageProgress``. Without a sink
(tests, the MCP launcher's subprocess, ``dagster dev``) tracking only counts. The sink is a
process-wide slot rather than a context variable because Dagster may run a step on another
thread than the one that started the run; each update names the asset whose step is running,
read from Dagster's current execution context.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterator

from pydantic import BaseModel

log = logging.getLogger("lyra.progress")


class StageProgress(BaseModel):
    """Where one long loop stands: ``done`` of ``total`` units after ``elapsed_s`` seconds."""

    id: int  # distinguishes two loops with the same label (two embedding passes of one asset)
    label: str  # "embedding", "NLI"
    unit: str  # "texts", "pairs"
    total: int
    done: int
    elapsed_s: float
    asset: str | None = None  # the asset being materialized, when Dagster runs the loop
    finished: bool = False

    @property
    def rate(self) -> float | None:
        """Units per second so far; None before any time has passed."""
        return self.done / self.elapsed_s if self.elapsed_s > 0 else None

    def summary(self) -> str:
        """One phrase for a log line: ``NLI 200 pairs in 11.8s (17 pairs/s)``."""
        rate = f" ({self.rate:.0f} {self.unit}/s)" if self.rate is not None else ""
        of = "" if self.done == self.total else f" of {self.total}"
        return f"{self.label} {self.done}{of} {self.unit} in {self.elapsed_s:.1f}s{rate}"


Sink = Callable[[StageProgress], None]

_lock = threading.Lock()
_sink: Sink | None = None
_ids = itertools.count(1)


@contextlib.contextmanager
def reporting_to(sink: Sink) -> Iterator[None]:
    """Send every tracked loop's updates to ``sink`` while the block runs (the previous sink after)."""
    global _sink
    with _lock:
        previous, _sink = _sink, sink
    try:
        yield
    finally:
        with _lock:
            _sink = previous


def _current_asset() -> str | None:
    """The asset Dagster is materializing on this thread (a multi-asset's first selected one), or
    None outside a step."""
    from dagster import AssetExecutionContext, DagsterInvariantViolationError

    try:
        context = AssetExecutionContext.get()
        selected = context.selected_asset_keys
        first = next(key for key in context.assets_def.keys_by_output_name.values() if key in selected)
        return first.to_user_string()
    except (DagsterInvariantViolationError, StopIteration):  # no step in scope, or an asset check
        return None


class Tracker:
    """Counts one loop's progress and reports each change; ``advance`` is cheap without a sink."""

    def __init__(self, label: str, total: int, unit: str):
        self.id, self.label, self.total, self.unit = next(_ids), label, total, unit
        self.done = 0
        self.asset = _current_asset()
        self._started = time.monotonic()

    def snapshot(self, finished: bool = False) -> StageProgress:
        return StageProgress(
            id=self.id,
            label=self.label,
            unit=self.unit,
            total=self.total,
            done=self.done,
            elapsed_s=time.monotonic() - self._started,
            asset=self.asset,
            finished=finished,
        )

    def advance(self, n: int = 1) -> None:
        self.done = min(self.total, self.done + n)
        self._report()

    def _report(self, finished: bool = False) -> None:
        sink = _sink
        if sink is None:
            return
        try:
            sink(self.snapshot(finished))
        except Exception:  # a broken display must never fail the computation it shows
            log.debug("progress sink failed", exc_info=True)


@contextlib.contextmanager
def track(label: str, total: int, unit: str) -> Iterator[Tracker]:
    """Report a loop of ``total`` units: an opening update, one per ``advance``, a finished one at
    the end (also when the loop raises, so a display never keeps a dead bar)."""
    tracker = Tracker(label, total, unit)
    tracker._report()
    try:
        yield tracker
    finally:
        tracker._report(finished=True)
