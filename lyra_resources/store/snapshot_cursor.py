"""What a read function gets as its connection while the server reads from its in-memory copies
(lyra_resources.store.snapshot_reads), and the error that sends a call back to the database file."""

from __future__ import annotations

from typing import Any, Protocol

import duckdb

Memo = dict[tuple[Any, ...], tuple[Any, list[tuple[Any, ...]]]]


class _Generation(Protocol):
    """A task generation's copy, as a cursor reads it (lyra_resources.store.snapshot_reads)."""

    memo: Memo


class _Home(Protocol):
    """The copy of the home's small tables, as a cursor reads it."""

    schema: str
    memo: Memo


MEMO_SIZE = 256  # query results kept per generation


class Preparer(Protocol):
    def prepare(self, sql: str, generation: _Generation | None) -> bool: ...


class NotInSnapshot(Exception):
    """The call needs what the in-memory copy does not hold exactly: answer it from the file."""


class _Rows:
    """A query's rows as the read functions fetch them (``fetchall``, ``fetchone``, ``description``),
    kept for the copies it read: they cannot change while those copies stand."""

    def __init__(self, description: Any, rows: list[tuple[Any, ...]]) -> None:
        self.description, self._rows, self._at = description, rows, 0

    def fetchall(self) -> list[tuple[Any, ...]]:
        rest, self._at = self._rows[self._at :], len(self._rows)
        return rest

    def fetchone(self) -> tuple[Any, ...] | None:
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]


class SnapshotCursor:
    """What the read functions take as a connection: ``execute`` runs on the in-memory copy once the
    per-task tables the SQL names are loaded; a write or a table outside the copy is refused."""

    def __init__(
        self,
        reader: Preparer,
        cursor: duckdb.DuckDBPyConnection,
        home: _Home,
        generation: _Generation | None,
    ) -> None:
        self._reader, self._cursor, self.home, self.generation = reader, cursor, home, generation

    def execute(self, sql: str, params: Any = None) -> Any:
        """The query's rows: kept per copy, since a task's tools ask the same questions of it (its
        overlay, its topics, its counts); DuckDB costs most of a millisecond a statement."""
        params = list(params or [])
        per_task = self._reader.prepare(sql, self.generation)
        # a question of the small tables alone is kept with their copy, whatever the task
        memo = self.generation.memo if per_task and self.generation else self.home.memo
        try:
            key: tuple[Any, ...] | None = (self.home.schema, sql, *params)
            kept = memo.get(key)  # type: ignore[arg-type]
        except TypeError:  # a parameter that is no plain value: asked every time
            key, kept = None, None
        if kept is None:
            try:
                result = self._cursor.execute(sql, params)
            except (duckdb.IOException, duckdb.BinderException, duckdb.CatalogException) as exc:
                # the generation's folder swept by a newer export, a column the copy left out:
                # the file answers (or says what is wrong with the query)
                raise NotInSnapshot(str(exc)) from exc
            kept = (result.description, result.fetchall() if result.description else [])
            if key is not None:
                if len(memo) >= MEMO_SIZE:
                    memo.clear()
                memo[key] = kept
        return _Rows(*kept)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)
