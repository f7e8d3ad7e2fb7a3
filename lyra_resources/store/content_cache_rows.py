"""The rows of the caches of computed values (``embedding_cache``, ``nli_cache``): those of some
keys read back, and new ones written, each one short transaction of its own. What a row's value
means, and how it is computed, is ``lyra_resources.models.content_cache``'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from lyra_resources.schema import TableSpec
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.sql import Connection


def read_cached(
    store: LyraStore, table: TableSpec, key_columns: Sequence[str], keys: Sequence[tuple[Any, ...]]
) -> list[dict[str, Any]]:
    """The rows of ``table`` (every column) whose ``key_columns`` are one of ``keys``."""
    if not keys:
        return []
    names = table.column_names
    wanted = pd.DataFrame(list(keys), columns=list(key_columns))
    with store.connect() as conn:
        conn.register("wanted", wanted)
        rows = conn.execute(
            f"SELECT {', '.join(f'c.{n}' for n in names)} FROM {table.name} c "
            f"JOIN wanted w USING ({', '.join(key_columns)})"
        ).fetchall()
    return [dict(zip(names, row, strict=True)) for row in rows]


def insert_new(
    store: LyraStore, table: TableSpec, key_columns: Sequence[str], rows: Sequence[dict[str, Any]]
) -> None:
    """Write ``rows`` (every column of ``table``) in one transaction, but those whose key another
    writer stored first: the row found keeps its value."""
    names = table.column_names
    fresh = pd.DataFrame(list(rows), columns=names)
    same_key = " AND ".join(f"c.{k} = f.{k}" for k in key_columns)

    def insert(conn: Connection) -> None:
        conn.register("fresh", fresh)
        conn.execute(
            f"INSERT INTO {table.name} ({', '.join(names)}) "
            f"SELECT {', '.join(f'f.{n}' for n in names)} FROM fresh f "
            f"WHERE NOT EXISTS (SELECT 1 FROM {table.name} c WHERE {same_key})"
        )

    store.transaction(insert)
