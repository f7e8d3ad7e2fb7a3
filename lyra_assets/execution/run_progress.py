"""Following a task run's progress: which assets it materializes, step by step, and a watcher that
reads the run's event log while it executes and reports each asset's state, rows and seconds
(the command line's progress display, ``lyra_tools.cli.progress_view``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Literal

from dagster import DagsterEventType, DagsterInstance
from pydantic import BaseModel

from lyra_assets.definitions import ASSETS
from lyra_assets.execution.runs import innermost_message


class AssetProgress(BaseModel):
    asset: str
    state: Literal["pending", "running", "done", "failed"] = "pending"
    rows: int | None = None
    kept: bool = False  # its rows stood: code and inputs as when they were built (``lyra_assets.reuse``)
    seconds: float | None = None
    error: str | None = None


def asset_names() -> list[str]:
    """Every asset of a task run, in run order (a multi-asset's in the order it declares them)."""
    return [name for names in step_assets().values() for name in names]


def step_assets() -> dict[str, list[str]]:
    """The assets each step of a task run materializes: one for most steps, two for a multi-asset's."""
    return {a.node_def.name: [key.to_user_string() for key in a.keys_by_output_name.values()] for a in ASSETS}


class ProgressWatcher(threading.Thread):
    """Follows a run's event log and reports per-asset progress while the run executes."""

    _TYPES = {
        DagsterEventType.STEP_START,
        DagsterEventType.STEP_SUCCESS,
        DagsterEventType.STEP_FAILURE,
        DagsterEventType.ASSET_MATERIALIZATION,
    }

    def __init__(
        self,
        instance: DagsterInstance,
        run_id: str,
        progress: dict[str, AssetProgress],
        callback: Callable[[dict[str, AssetProgress]], None] | None,
    ):
        super().__init__(daemon=True)
        self.instance, self.run_id, self.progress, self.callback = instance, run_id, progress, callback
        self.finished = threading.Event()
        self._cursor: str | None = None
        self._step_started: dict[str, float] = {}
        self._step_assets = step_assets()

    def run(self) -> None:
        while not self.finished.is_set():
            self.poll()
            self.finished.wait(0.3)
        self.poll()

    def poll(self) -> None:
        try:
            conn = self.instance.get_records_for_run(self.run_id, cursor=self._cursor, of_type=self._TYPES)
        except Exception:  # the run may not be registered yet
            return
        self._cursor = conn.cursor
        changed = False
        for record in conn.records:
            event = record.event_log_entry.dagster_event
            if event is None:
                continue
            timestamp = record.event_log_entry.timestamp
            if event.event_type == DagsterEventType.ASSET_MATERIALIZATION:  # one per asset of the step
                item = self.progress.get(event.asset_key.to_user_string() if event.asset_key else "")
                if item is None:
                    continue
                meta = event.event_specific_data.materialization.metadata
                rows = meta.get("dagster/row_count")
                item.rows = int(rows.value) if rows is not None else None
                item.kept = "reused" in meta
                changed = True
                continue
            step = event.step_key or ""
            items = [self.progress[name] for name in self._step_assets.get(step, []) if name in self.progress]
            changed = changed or bool(items)
            if event.event_type == DagsterEventType.STEP_START:
                self._step_started[step] = timestamp
            for item in items:  # a step event is every asset's of the step
                if event.event_type == DagsterEventType.STEP_START:
                    item.state = "running"
                elif event.event_type == DagsterEventType.STEP_SUCCESS:
                    item.state = "done"
                    item.seconds = timestamp - self._step_started.get(step, timestamp)
                elif event.event_type == DagsterEventType.STEP_FAILURE:
                    item.state = "failed"
                    item.error = innermost_message(event.event_specific_data.error)
        if changed and self.callback:
            self.callback(self.progress)
