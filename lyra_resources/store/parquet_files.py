"""A task's tables as Parquet files, one folder per generation, switched at once.

Layout under ``<home>/parquet``::

    _generations/<task>/<generation>/<table>/data.parquet   every table of one generation of the task
    _generations/<task>/<generation>/manifest.json          which run published it, when, row counts
    _generations/<task>/current -> <generation>             the generation readers see (a symlink)
    <table>/task_id=<task> -> ../_generations/<task>/current/<table>

A new generation is written whole into a folder of its own, then ``current`` is swapped for a
link to it with one ``rename`` (atomic on POSIX file systems), and only then are the older folders
removed. So a process killed at any point leaves ``current`` naming one complete generation: the
old one or the new one, never some tables of each. The hive-partitioned path
``<table>/task_id=<task>/data.parquet`` leads through ``current``; a reader wanting several tables
of one generation resolves ``current`` once and reads them under the folder it names.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from lyra_resources.schema import TableSpec

if TYPE_CHECKING:  # the writers receive data frames; reading paths need no pandas
    import pandas as pd

GENERATIONS = "_generations"
CURRENT = "current"
MANIFEST = "manifest.json"
DATA_FILE = "data.parquet"


def write_parquet(spec: TableSpec, frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` (the table's columns, ``task_id`` included) to ``path`` without ``task_id``,
    which the hive-partitioned folder names."""
    # Cast through an in-memory table of the contract's types so every file of a table has
    # one schema, whatever pandas inferred (an empty frame included).
    mem = duckdb.connect(":memory:")
    try:
        mem.execute(spec.ddl().replace("PRIMARY KEY", ""))
        mem.register("incoming_rows", frame)
        mem.execute(f"INSERT INTO {spec.name} BY NAME SELECT * FROM incoming_rows")
        mem.execute(
            f"COPY (SELECT * EXCLUDE (task_id) FROM {spec.name}) TO '{_sql_path(path)}' "
            "(FORMAT parquet, COMPRESSION zstd)"
        )
    finally:
        mem.close()


def task_folder(root: Path, task_id: str) -> Path:
    """Where the task's generations lie (``root`` is ``<home>/parquet``)."""
    return root / GENERATIONS / task_id


def table_file(root: Path, table: str, task_id: str) -> Path:
    """The hive-partitioned path of the task's rows of ``table``: it leads to the current generation."""
    return root / table / f"task_id={task_id}" / DATA_FILE


def current_generation(root: Path, task_id: str) -> Path | None:
    """The folder of the generation readers see now (resolved once), or None before the first export."""
    link = task_folder(root, task_id) / CURRENT
    return link.resolve() if link.is_symlink() and link.exists() else None


@contextlib.contextmanager
def task_files_lock(root: Path, task_id: str) -> Iterator[None]:
    """One writer of a task's Parquet files at a time, across processes: a second export waits, so
    a later generation is never swapped out by an earlier one nor swept from under its writer."""
    folder = task_folder(root, task_id)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_generation(
    root: Path,
    task_id: str,
    tables: Mapping[str, tuple[TableSpec, pd.DataFrame]],
    manifest: Mapping[str, Any],
) -> Path:
    """Write every table of ``tables`` into a new generation folder, make it the task's current one
    and remove the older ones; returns the new folder. Call it holding ``task_files_lock``."""
    folder = task_folder(root, task_id)
    label = str(manifest.get("run_id") or "direct")
    generation = folder / f"{label}.{uuid.uuid4().hex[:8]}"
    for name, (spec, frame) in tables.items():
        (generation / name).mkdir(parents=True, exist_ok=True)
        write_parquet(spec, frame, generation / name / DATA_FILE)
    rows = {name: len(frame) for name, (_, frame) in tables.items()}
    (generation / MANIFEST).write_text(
        json.dumps({**manifest, "task_id": task_id, "rows": rows}, default=str, indent=2) + "\n",
        encoding="utf-8",
    )
    _link_tables(root, task_id, list(tables))
    pointer = folder / f".{CURRENT}-{uuid.uuid4().hex[:8]}"
    pointer.symlink_to(generation.name, target_is_directory=True)
    current = folder / CURRENT
    if current.is_dir() and not current.is_symlink():  # a copy of the home that did not keep links
        os.replace(current, folder / f".old-{CURRENT}-{uuid.uuid4().hex[:8]}")  # swept below
    os.replace(pointer, current)  # the switch: every table of the task at once
    for child in folder.iterdir():  # older generations, and what killed writers left, only now
        if child.name in (CURRENT, ".lock", generation.name):
            continue
        if child.is_symlink() or child.is_file():
            child.unlink(missing_ok=True)
        else:
            shutil.rmtree(child, ignore_errors=True)
    return generation


def remove_task_files(root: Path, task_id: str, tables: list[str]) -> list[Path]:
    """Remove the task's links and every generation of it; returns what was there."""
    removed = []
    for name in tables:
        link = table_file(root, name, task_id).parent
        if link.is_symlink():
            link.unlink()
            removed.append(link)
        elif link.exists():  # a home written before generations had folders of their own
            shutil.rmtree(link, ignore_errors=True)
            removed.append(link)
    folder = task_folder(root, task_id)
    if folder.exists():
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _link_tables(root: Path, task_id: str, tables: list[str]) -> None:
    """``<table>/task_id=<task>`` as a link through ``current``, made once per table (a folder of the
    layout before generations is replaced by the link)."""
    for name in tables:
        link = table_file(root, name, task_id).parent
        if link.is_symlink():
            continue
        link.parent.mkdir(parents=True, exist_ok=True)
        # made aside in the task's folder (a leftover there is swept, never read through the table's glob)
        aside = task_folder(root, task_id)
        fresh = aside / f".link-{name}-{uuid.uuid4().hex[:8]}"
        fresh.symlink_to(Path("..", GENERATIONS, task_id, CURRENT, name), target_is_directory=True)
        if link.exists():
            old = aside / f".old-{name}-{uuid.uuid4().hex[:8]}"
            os.replace(link, old)
            os.replace(fresh, link)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(fresh, link)


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")
