"""``lyra``: create research tasks, run them through Dagster, inspect and manage them.

Each command group lives in its own module; this one builds the app from them, in the order
``lyra --help`` lists the commands."""

from __future__ import annotations

import sys

import typer

from lyra_resources.settings import SettingsError
from lyra_resources.store import StoreError
from lyra_tools import (
    browse_cli,
    cli_feedback,
    cli_models,
    cli_run,
    cli_serve,
    cli_store,
    cli_tasks,
    cli_worker,
    search_cli,
)
from lyra_tools.cli_common import fail

app = typer.Typer(help="Lyra: turn a research question into an evidence graph.", no_args_is_help=True)
app.add_typer(cli_run.app)  # `lyra run`, `lyra verify`
app.add_typer(cli_serve.app)  # `lyra mcp`, `lyra ui`, `lyra export`
app.add_typer(cli_tasks.app, name="task")
app.add_typer(cli_models.app, name="models")
app.add_typer(browse_cli.app)  # `lyra claims`, `lyra evidence`
app.add_typer(search_cli.app)  # `lyra search`
app.add_typer(cli_feedback.app, name="feedback")
app.add_typer(cli_worker.app)  # `lyra worker` (cluster profile)
app.add_typer(cli_store.app, name="store")  # `lyra store copy` (moving a home to the cluster profile)


def main() -> None:
    try:
        app()
    except (SettingsError, StoreError) as exc:  # a broken settings file, a store that cannot be reached
        fail(str(exc))
        sys.exit(1)


if __name__ == "__main__":
    main()
