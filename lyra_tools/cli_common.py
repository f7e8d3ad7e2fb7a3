"""What every ``lyra`` command shares: the ``--home`` option, the store it opens, the consoles and
the one-line error that ends a command with a non-zero exit code."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from lyra_resources.settings import resolve_home
from lyra_resources.store import LyraStore, StoreError, TaskRecord

console = Console()
err = Console(stderr=True)

HomeOption = Annotated[
    Path | None,
    typer.Option("--home", help="Lyra home directory (default: $LYRA_HOME or ./.lyra)", show_default=False),
]


def open_store(home: Path | None) -> LyraStore:
    """The store of the Lyra home ``home`` (default: $LYRA_HOME or ./.lyra)."""
    return LyraStore(home=str(resolve_home(home)))


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``message`` as one error line on stderr; the caller raises the returned Exit."""
    # soft_wrap: one line stays one line whatever the terminal's width; no highlighting of paths and numbers
    err.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True, highlight=False)
    return typer.Exit(code)


def require_task(home: Path | None, task_id: str) -> TaskRecord:
    """The task ``task_id`` of the home, or its one-line error and exit code 1."""
    try:
        return open_store(home).require_task(task_id)
    except StoreError as exc:
        raise fail(str(exc)) from exc
