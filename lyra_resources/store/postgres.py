"""The store's tables in Postgres: the backend many processes and machines can write at once.

Lyra's SQL is written once, in the subset DuckDB and Postgres share; this module makes a Postgres
connection answer the calls the store's callers make of a DuckDB connection (``execute`` with
``?`` parameters, ``fetchone``/``fetchall``/``df``, ``register`` of a data frame, explicit
``BEGIN``/``COMMIT``), so every query runs unchanged on either backend. The tables live in the
``lyra`` schema of the cluster's database (beside Dagster's own tables, which keep ``public``).

Writers of different tasks never wait for each other (row-level locks, an index on ``task_id``);
two writers of one task are serialised by a transaction-scoped advisory lock on the task.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Sequence
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import psycopg2
import psycopg2.extensions
import psycopg2.extras
import pyarrow as pa

from lyra_resources.schema import TableSpec
from lyra_resources.store.locks import StoreError
from lyra_resources.store.sql import POSTGRES_SCHEMA as SCHEMA
from lyra_resources.store.sql import create_tables

# DuckDB type → Postgres type, for the types the table contract uses. Text compares byte by byte
# (COLLATE "C"), as DuckDB's does, so ORDER BY gives the same order on both backends.
_TYPES = {
    "VARCHAR": 'VARCHAR COLLATE "C"',
    "VARCHAR[]": "VARCHAR[]",
    "DOUBLE": "DOUBLE PRECISION",
    "FLOAT": "REAL",
    "FLOAT[]": "REAL[]",
    "JSON": 'TEXT COLLATE "C"',
    "INTEGER": "INTEGER",
    "BIGINT": "BIGINT",
    "BOOLEAN": "BOOLEAN",
    "TIMESTAMP": "TIMESTAMP",
}
_TYPE_HEAD = re.compile(r"^\s*([A-Z]+(?:\[\])?)(.*)$", re.S)

# Functions DuckDB has and Postgres 15 lacks (Postgres 16 has any_value built in; pg_catalog wins).
_COMPAT = (
    f"CREATE OR REPLACE FUNCTION {SCHEMA}.any_value_step(anyelement, anyelement) RETURNS anyelement "
    "LANGUAGE sql IMMUTABLE AS 'SELECT COALESCE($1, $2)'",
    f"CREATE OR REPLACE AGGREGATE {SCHEMA}.any_value(anyelement) (SFUNC = {SCHEMA}.any_value_step, "
    "STYPE = anyelement)",
)


def _safe(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(//[^:/@]+):[^@]*@", r"\1:***@", url)


def column_type(duckdb_type: str) -> str:
    """A contract column's DuckDB type (with any NOT NULL / DEFAULT / PRIMARY KEY) in Postgres."""
    match = _TYPE_HEAD.match(duckdb_type)
    if match is None or match.group(1) not in _TYPES:
        raise ValueError(f"no Postgres type for the column type {duckdb_type!r}")
    return _TYPES[match.group(1)] + match.group(2)


def table_ddl(spec: TableSpec) -> str:
    cols = ", ".join(f"{c.name} {column_type(c.type)}" for c in spec.columns)
    return f"CREATE TABLE IF NOT EXISTS {SCHEMA}.{spec.name} ({cols})"


def create_schema(conn: PostgresConnection, specs: Sequence[TableSpec]) -> None:
    """Create the schema, the tables (and the columns a newer Lyra added) and their indexes in one
    transaction; processes starting together take turns through an advisory lock."""
    conn.execute("BEGIN")
    conn.execute("SELECT pg_advisory_xact_lock(hashtext('lyra schema'))")
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    for statement in _COMPAT:
        conn.execute(statement)
    create_tables(conn, specs, schema=SCHEMA, ddl=table_ddl, column_type=column_type)
    for spec in specs:
        for key in ("task_id", "run_id"):
            if key in spec.column_names:
                conn.execute(f"CREATE INDEX IF NOT EXISTS {spec.name}_{key} ON {SCHEMA}.{spec.name} ({key})")
    conn.execute("COMMIT")


def translate(sql: str, params: Sequence[Any] | None) -> tuple[str, Sequence[Any] | dict[str, Any] | None]:
    """DuckDB's placeholders as psycopg2's: ``?`` as ``%s``, ``$n`` as ``%(pn)s`` (the parameters then
    a mapping), and a literal ``%`` doubled; quoted strings and identifiers are left alone."""
    if params is None:
        return sql, None
    out, quote, numbered, i = [], None, False, 0
    while i < len(sql):
        char = sql[i]
        if quote:
            out.append("%%" if char == "%" else char)
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
            out.append(char)
        elif char == "?":
            out.append("%s")
        elif char == "%":
            out.append("%%")
        elif char == "$" and (digits := re.match(r"\d+", sql[i + 1 :])):
            out.append(f"%(p{digits.group()})s")
            numbered = True
            i += len(digits.group())
        else:
            out.append(char)
        i += 1
    if numbered:
        return "".join(out), {f"p{n}": value for n, value in enumerate(params, start=1)}
    return "".join(out), params


def _plain(value: Any) -> Any:
    """A value psycopg2 can send: numpy scalars and arrays as Python ones, NaN/NaT as NULL."""
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if value is pd.NaT or value is pd.NA or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    return value


def frame_rows(frame: pd.DataFrame) -> list[tuple]:
    return [tuple(_plain(v) for v in row) for row in frame.itertuples(index=False, name=None)]


# Postgres type OIDs → Arrow types, so a result becomes the same pandas frame DuckDB's .df() gives.
_ARROW = {
    16: pa.bool_(),
    20: pa.int64(),
    21: pa.int16(),
    23: pa.int32(),
    700: pa.float32(),
    701: pa.float64(),
    1700: pa.float64(),
    25: pa.string(),
    1043: pa.string(),
    1042: pa.string(),
    705: pa.string(),
    114: pa.string(),
    3802: pa.string(),
    1114: pa.timestamp("us"),
    1184: pa.timestamp("us", tz="UTC"),
    1082: pa.date32(),
    1009: pa.list_(pa.string()),
    1015: pa.list_(pa.string()),
    1021: pa.list_(pa.float32()),
    1022: pa.list_(pa.float64()),
    1007: pa.list_(pa.int32()),
    1016: pa.list_(pa.int64()),
}


# DuckDB turns the Arrow table into pandas, so dtypes are those of DuckDB's own .df() (Int32 with
# NULLs, BooleanDtype, …), which pyarrow's to_pandas() would not give.
_CONVERTER = duckdb.connect(":memory:")
_CONVERTER_LOCK = threading.Lock()


class PostgresResult:
    """The rows of one statement, read like a DuckDB result."""

    def __init__(self, description: Sequence[Any] | None, rows: list[tuple]):
        self.description = [(d.name, d.type_code) for d in description] if description else None
        self._rows = rows
        self._next = 0

    def fetchone(self) -> tuple | None:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchall(self) -> list[tuple]:
        rows, self._next = self._rows[self._next :], len(self._rows)
        return rows

    def df(self) -> pd.DataFrame:
        names = [name for name, _ in self.description or []]
        columns = list(zip(*self.fetchall(), strict=True)) or [() for _ in names]
        arrays = [
            pa.array(values, type=_ARROW.get(code))
            for (_, code), values in zip(self.description or [], columns, strict=True)
        ]
        table = pa.Table.from_arrays(arrays, names=_unique(names))
        with _CONVERTER_LOCK:  # a cursor of one in-memory instance costs ~2 ms, a new instance ~15 ms
            converter = _CONVERTER.cursor()
        try:
            frame = converter.from_arrow(table).df()
        finally:
            converter.close()
        frame.columns = names
        return frame

    fetchdf = df


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}_{seen[name] - 1}")
    return out


_FRAME_TYPES = {"b": "BOOLEAN", "i": "BIGINT", "u": "BIGINT", "f": "DOUBLE PRECISION", "M": "TIMESTAMP"}


class PostgresConnection:
    """One Postgres session that answers the subset of DuckDB's connection API Lyra's code uses."""

    is_postgres = True

    def __init__(self, raw: psycopg2.extensions.connection):
        self.raw = raw

    @classmethod
    def open(cls, url: str) -> PostgresConnection:
        try:
            raw = psycopg2.connect(url, options=f"-c search_path={SCHEMA},public")
        except psycopg2.OperationalError as exc:
            reason = (str(exc).strip().splitlines() or ["no reason given"])[0].strip()
            raise StoreError(f"cannot reach the store's Postgres ({_safe(url)}): {reason}") from exc
        raw.autocommit = True  # transactions are the explicit BEGIN/COMMIT the store sends
        numeric = psycopg2.extensions.new_type(
            psycopg2.extensions.DECIMAL.values, "LYRA_FLOAT", lambda v, _: None if v is None else float(v)
        )
        psycopg2.extensions.register_type(numeric, raw)
        psycopg2.extras.register_default_json(raw, loads=lambda text: text)
        psycopg2.extras.register_default_jsonb(raw, loads=lambda text: text)
        return cls(raw)

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> PostgresResult:
        params = [_plain(p) for p in params] if params else None
        with self.raw.cursor() as cursor:
            cursor.execute(*translate(sql, params))
            rows = cursor.fetchall() if cursor.description else []
            return PostgresResult(cursor.description, rows)

    def insert_rows(self, table: str, frame: pd.DataFrame) -> None:
        """Insert the rows of ``frame`` into ``table``'s columns of the same names (within the
        caller's transaction)."""
        rows = frame_rows(frame)
        if not rows:
            return
        columns = ", ".join(f'"{col}"' for col in frame.columns)
        with self.raw.cursor() as cursor:
            psycopg2.extras.execute_values(
                cursor, f"INSERT INTO {table} ({columns}) VALUES %s", rows, page_size=500
            )

    def register(self, name: str, frame: pd.DataFrame) -> None:
        """Make ``frame`` readable as ``name`` in this session (a temporary table, as DuckDB's view)."""
        cols = ", ".join(f'"{col}" {_frame_type(frame[col])}' for col in frame.columns)
        self.execute(f"DROP TABLE IF EXISTS pg_temp.{name}")
        self.execute(f"CREATE TEMP TABLE {name} ({cols})")
        self.insert_rows(f"pg_temp.{name}", frame)

    def unregister(self, name: str) -> None:
        self.execute(f"DROP TABLE IF EXISTS pg_temp.{name}")

    def close(self) -> None:
        self.raw.close()


def _frame_type(series: pd.Series) -> str:
    if series.dtype.kind in _FRAME_TYPES:
        return _FRAME_TYPES[series.dtype.kind]
    sample = next((v for v in series if v is not None and not (isinstance(v, float) and v != v)), None)
    if isinstance(sample, list | tuple | np.ndarray):
        inner = next((x for x in sample), "")
        return "DOUBLE PRECISION[]" if isinstance(inner, float | np.floating) else "VARCHAR[]"
    if isinstance(sample, bool):
        return "BOOLEAN"
    if isinstance(sample, int):
        return "BIGINT"
    if isinstance(sample, float):
        return "DOUBLE PRECISION"
    if isinstance(sample, dt.datetime):
        return "TIMESTAMP"
    return 'VARCHAR COLLATE "C"'
