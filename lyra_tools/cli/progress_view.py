"""What ``lyra run`` and ``lyra task run`` show while a task's assets materialize.

On a terminal: a live table of the assets (pending · running … done ✓ failed ✗) with a
rich.progress bar under it for each long loop in flight (embedding, NLI) giving count, rate and
elapsed time. Piped into a file or another program: one plain line per asset, written and
flushed as the asset finishes, so a log follows the run.
"""

from __future__ import annotations

import contextlib
import io
import os
import threading
from collections.abc import Iterator

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from lyra_assets.execution import run_control, run_progress
from lyra_resources.progress import StageProgress, reporting_to
from lyra_tools.cli.common import command_settings, untrusted

_MARK = {"pending": "·", "running": "…", "done": "✓", "failed": "✗"}
_STYLE = {"pending": "dim", "running": "yellow", "done": "green", "failed": "bold red"}
Assets = dict[str, run_progress.AssetProgress]


class _StageNotes:
    """Finished long loops per asset, as phrases for that asset's line (written by the asset's
    thread, read by the run watcher's)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._notes: dict[str, list[str]] = {}

    def add(self, update: StageProgress) -> None:
        if update.asset:
            with self._lock:
                self._notes.setdefault(update.asset, []).append(update.summary())

    def of(self, asset: str) -> str:
        with self._lock:
            return "; ".join(self._notes.get(asset, []))


def asset_line(item: run_progress.AssetProgress, notes: str = "") -> str:
    """One finished asset as plain text: ``✓ nli_edges  200 rows  11.8s  NLI 200 pairs in …``."""
    parts = [f"{_MARK[item.state]} {item.asset:<20}"]
    if item.rows is not None:
        parts.append(f"{item.rows} rows")
    elif item.kept:
        parts.append("kept (unchanged)")
    if item.seconds is not None:
        parts.append(f"{item.seconds:.1f}s")
    if notes:
        parts.append(notes)
    if item.state == "failed" and item.error:
        parts.append(f"failed: {item.error.splitlines()[0]}")
    return "  ".join(parts)


class LineDisplay:
    """Piped output: each asset's line printed and flushed once, when it finishes."""

    def __init__(self, console: Console):
        self.console, self.notes = console, _StageNotes()
        self._printed: set[str] = set()
        self._lock = threading.Lock()

    def stage(self, update: StageProgress) -> None:
        if update.finished:
            self.notes.add(update)

    def assets(self, progress: Assets) -> None:
        with self._lock:
            for item in progress.values():
                if item.state in ("done", "failed") and item.asset not in self._printed:
                    self._printed.add(item.asset)
                    self.console.print(
                        untrusted(asset_line(item, self.notes.of(item.asset))),
                        highlight=False,
                        soft_wrap=True,
                    )
                    self.console.file.flush()


class LiveDisplay:
    """Terminal output: the asset table with a bar per long loop in flight, redrawn in place."""

    def __init__(self, console: Console):
        self.console, self.notes = console, _StageNotes()
        self.bars = Progress(
            TextColumn("  {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[unit]}  {task.fields[rate]}"),
            TimeElapsedColumn(),
            console=console,
        )
        self._bar_of: dict[int, TaskID] = {}
        self._lock = threading.Lock()
        self._assets: Assets = {
            name: run_progress.AssetProgress(asset=name) for name in run_progress.asset_names()
        }
        self.live = Live(self._render(), console=console, refresh_per_second=4, transient=False)

    def _table(self) -> Table:
        table = Table(box=None, show_header=False, pad_edge=False)
        for item in self._assets.values():
            rows = f"{item.rows} rows" if item.rows is not None else "kept (unchanged)" if item.kept else ""
            secs = f"{item.seconds:.1f}s" if item.seconds is not None else ""
            table.add_row(
                f"[{_STYLE[item.state]}]{_MARK[item.state]} {item.asset}[/]",
                rows,
                secs,
                f"[dim]{untrusted(self.notes.of(item.asset))}[/]",
            )
        return table

    def _render(self) -> Group:
        return Group(self._table(), self.bars)

    def stage(self, update: StageProgress) -> None:
        rate = f"{update.rate:.0f}/s" if update.rate else ""
        with self._lock:
            bar = self._bar_of.get(update.id)
            if bar is None and not update.finished:
                name = f"{update.asset} · {update.label}" if update.asset else update.label
                bar = self._bar_of[update.id] = self.bars.add_task(
                    name, total=update.total, unit=update.unit, rate=rate
                )
            if bar is None:
                return
            if update.finished:  # the asset's row keeps the figures; the bar goes
                self.bars.remove_task(bar)
                del self._bar_of[update.id]
                self.notes.add(update)
            else:
                self.bars.update(bar, completed=update.done, rate=rate)

    def assets(self, progress: Assets) -> None:
        with self._lock:
            self._assets = {name: item.model_copy() for name, item in progress.items()}
            self.live.update(self._render())


@contextlib.contextmanager
def _display_console(console: Console) -> Iterator[Console]:
    """A console writing to a duplicate of ``console``'s file descriptor. Dagster's compute-log
    capture points descriptors 1 and 2 at files while a run executes (a ``tail`` copies them
    back); a display writing there would reach the terminal late, or not at all once rich sees a
    file instead of a terminal. Consoles without a descriptor (a test's buffer) are used as they are."""
    try:
        fd = console.file.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        yield console
        return
    console.file.flush()
    with os.fdopen(os.dup(fd), "w", encoding="utf-8") as stream:
        yield Console(
            file=stream,
            force_terminal=console.is_terminal,
            width=console.width,
            height=console.height,
            color_system=console.color_system,
            highlight=False,
        )


def run_with_display(
    task_id: str, home, console: Console, *, rebuild: bool = False
) -> run_control.RunOutcome:
    """Run the task's assets, showing them live on a terminal or line by line elsewhere (``rebuild``:
    every asset computes its rows, none keeps unchanged ones)."""
    with _display_console(console) as out:
        if out.is_terminal:
            display = LiveDisplay(out)
            with display.live, reporting_to(display.stage):
                outcome = run_control.run_task(
                    task_id, home, on_progress=display.assets, rebuild=rebuild, settings=command_settings()
                )
                display.assets(outcome.assets)
            out.print()
            return outcome
        lines = LineDisplay(out)
        with reporting_to(lines.stage):
            outcome = run_control.run_task(
                task_id, home, on_progress=lines.assets, rebuild=rebuild, settings=command_settings()
            )
        lines.assets(outcome.assets)  # anything the watcher had not seen yet
        return outcome
