"""``lyra store``: the store's own housekeeping (copying a home's DuckDB file into Postgres)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from lyra_resources.store.lyra_store import StoreError
from lyra_tools.cli.common import HomeOption, console, fail, open_store, untrusted

app = typer.Typer(help="The store: where the tasks and their tables are.", no_args_is_help=True)


@app.command("copy")
def copy(
    source: Annotated[
        Path | None, typer.Argument(help="the DuckDB file to copy (default: the home's lyra.duckdb)")
    ] = None,
    home: HomeOption = None,
) -> None:
    """Copy a DuckDB file's tasks, tables and feedback into the Postgres store (a fresh database),
    for a home moving to the cluster profile; the file is left as it is."""
    from lyra_resources.store.postgres_copy import copy_duckdb_into

    store = open_store(home)
    database = source or store.layout.database
    try:
        counts = copy_duckdb_into(store, database)
    except StoreError as exc:
        raise fail(str(exc)) from exc
    table = Table("table", "rows")
    for name, rows in counts.items():
        table.add_row(name, f"{rows:,}")
    console.print(table)
    console.print(
        untrusted(f"copied {sum(counts.values()):,} rows of {database} into {store.where}"), soft_wrap=True
    )
