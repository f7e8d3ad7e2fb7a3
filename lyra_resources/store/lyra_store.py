"""The store every asset writes through: tables in the home's DuckDB file (or in Postgres), with
Parquet exports.

DuckDB lets one process write a database file at a time and refuses even a read-only open
while a writer holds it. So the store never keeps a connection: each call opens the file, runs
one short transaction and closes it, retrying with backoff while another process (a pipeline
run, the CLI, the MCP server) holds the lock.

Why not dagster-duckdb's IO manager or ``DuckDBResource``: the IO manager deletes a partition's
rows and inserts the new ones in separate autocommitted statements (a failure between them loses
the previous rows) and writes no Parquet; ``DuckDBResource.get_connection`` retries only the
open and does not close the connection when the block raises, which would keep the file locked.

Where the store's backend is Postgres (the cluster profile, ``lyra_resources.store.postgres``), the
same calls run the same SQL on a short-lived Postgres session: many processes and machines write at
once, and the transaction boundaries stay exactly where they are on DuckDB.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import duckdb
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from lyra_resources.home import HomeLayout, resolve_home
from lyra_resources.schema import PER_TASK_TABLES, STAGE_PREFIX, STAGING_TABLES, TABLES, TableSpec
from lyra_resources.settings.loading import effective_cluster_settings
from lyra_resources.settings.services import ClusterSettings
from lyra_resources.store import change_stamp, parquet_files
from lyra_resources.store.faults import is_read_only_refusal, store_fault, store_file_fault
from lyra_resources.store.locks import STORE_RETRY, StoreBusyError, StoreError  # noqa: F401 (re-exported)
from lyra_resources.store.sql import (
    POSTGRES_SCHEMA,
    Connection,
    create_tables,
    fetch_rows,
    is_postgres,
    sql_literal,
    swap_rows,
)
from lyra_resources.store.task_records import TaskRecord, new_task, task_from_row, task_update, utcnow
from lyra_resources.store.task_tables import conform, delete_task_rows, read_task_tables, table_spec

if TYPE_CHECKING:  # pandas is imported by the calls that read or write data frames, not by every command
    import pandas as pd

log = logging.getLogger(__name__)

_schema_ready: set[str] = set()
_schema_lock = threading.Lock()
# database file → why this process opens it read-only (its home cannot be written)
_read_only_homes: dict[str, str] = {}


class LyraStore(BaseModel):
    """DuckDB tables with hive-partitioned Parquet exports under the Lyra home. Plain pydantic, so
    the command line reads the store without Dagster; the assets receive it as a Dagster resource
    (``lyra_assets.graph.publish.TaskStore``)."""

    model_config = ConfigDict(frozen=True)

    home: str = Field(description="Lyra home directory (holds lyra.duckdb and parquet/)")
    busy_timeout_s: float = Field(120.0, description="how long to wait for another process's lock")
    store_url: str | None = Field(
        None,
        description="where the tables are: a Postgres URL, or '' for the home's DuckDB file, as the "
        "command or run that opens the store read it from its settings (``for_settings``); None: the "
        "user's settings, read when the store is first used (a store opened outside a command)",
    )

    _layout: HomeLayout | None = PrivateAttr(default=None)
    _url: str | None = PrivateAttr(default=None)
    # (task_id, run_id) while this store serves a run that stages the task's graph
    # (lyra_resources.store.generations)
    _staged: tuple[str, str] | None = PrivateAttr(default=None)

    @classmethod
    def at(cls, home: str | os.PathLike[str] | None = None) -> LyraStore:
        return cls(home=str(resolve_home(home)))

    @classmethod
    def for_settings(cls, home: str | os.PathLike[str], cluster: ClusterSettings) -> LyraStore:
        """The store of ``home`` where ``cluster`` (the effective cluster settings a command or run
        loaded once) puts the tables: opening it reads no settings file."""
        return cls(home=str(home), store_url=cluster.store_url())

    @property
    def layout(self) -> HomeLayout:
        if self._layout is None:
            self._layout = HomeLayout(root=resolve_home(self.home))
        return self._layout

    @property
    def url(self) -> str:
        """The Postgres URL where the store's tables are in Postgres; "" for the home's DuckDB file
        (the settings' ``cluster.store``, or the profile, decide)."""
        if self.store_url is not None:
            return self.store_url
        if self._url is None:
            self._url = effective_cluster_settings().store_url()
        return self._url

    @property
    def where(self) -> str:
        """Where the tables are, for messages: the DuckDB file, or the Postgres server and database."""
        if not self.url:
            return str(self.layout.database)
        parts = urlsplit(self.url)
        return f"Postgres {parts.hostname}:{parts.port or 5432}{parts.path} (schema {POSTGRES_SCHEMA})"

    # -- connections ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def connect(self) -> Iterator[Connection]:
        """One short-lived connection, opened with retries while another process holds the lock. A
        store fault (a damaged file, a read-only home, a full disk) is raised as StoreFaultError."""
        with self._faults_named():
            self._ensure_schema()
            conn = self._open()
            try:
                if self._staged is not None:
                    self._show_staged(conn, *self._staged)
                yield conn
            finally:
                conn.close()

    @contextlib.contextmanager
    def _faults_named(self) -> Iterator[None]:
        """DuckDB's and the file system's errors that are store faults, raised as what they are."""
        try:
            yield
        except StoreError:
            raise
        except (duckdb.Error, OSError) as exc:
            if (
                self.url
                or (
                    fault := store_fault(
                        exc, self.layout.database, _read_only_homes.get(str(self.layout.database))
                    )
                )
                is None
            ):
                raise
            raise fault from exc

    def _open(self) -> Connection:
        if self.url:
            from lyra_resources.store.postgres import PostgresConnection

            return PostgresConnection.open(self.url)
        if (fault := store_file_fault(self.layout.database)) is not None:  # a folder, a pipe: no open
            raise fault
        database = str(self.layout.database)
        if database in _read_only_homes:
            return STORE_RETRY.run(
                lambda: duckdb.connect(database, read_only=True), timeout_s=self.busy_timeout_s, what=database
            )
        try:
            return STORE_RETRY.run(
                lambda: duckdb.connect(database), timeout_s=self.busy_timeout_s, what=database
            )
        except duckdb.Error as exc:
            if not is_read_only_refusal(exc) or not self.layout.database.is_file():
                raise
            # a home that cannot be written is still read: the file opened read-only, and a write says why it fails
            connection = STORE_RETRY.run(
                lambda: duckdb.connect(database, read_only=True), timeout_s=self.busy_timeout_s, what=database
            )
            _read_only_homes[database] = " ".join(str(exc).split()).split(": ")[-1]
            return connection

    def transaction(self, work, *, retries_s: float | None = None):
        """Run ``work(conn)`` in one transaction; retried as a whole on a lock or write conflict."""

        def attempt():
            with self.connect() as conn:
                try:
                    conn.execute("BEGIN TRANSACTION")
                    result = work(conn)
                    conn.execute("COMMIT")
                    if not self.url:  # long-lived readers learn of it without opening the file
                        change_stamp.mark_changed(self.layout.database)
                    return result
                except BaseException:
                    with contextlib.suppress(Exception):
                        conn.execute("ROLLBACK")
                    raise

        timeout_s = retries_s if retries_s is not None else self.busy_timeout_s
        return STORE_RETRY.run(attempt, timeout_s=timeout_s, what=self.where)

    def _ensure_schema(self) -> None:
        """Create the tables (and the columns a newer Lyra added) once per process and database."""
        key = self.url or str(self.layout.database)
        if key in _schema_ready:
            return
        with _schema_lock:
            if key in _schema_ready:
                return
            conn = self._open()
            try:
                specs = [*TABLES.values(), *STAGING_TABLES.values()]
                if is_postgres(conn):
                    from lyra_resources.store.postgres import create_schema

                    create_schema(conn, specs)
                else:
                    create_tables(conn, specs)
            finally:
                conn.close()
            _schema_ready.add(key)

    @staticmethod
    def real_table(conn: Connection, table: str) -> str:
        """``table`` in the database itself, past any temporary view of the same name."""
        return LyraStore._real_schema(conn) + table

    @staticmethod
    def _real_schema(conn: Connection) -> str:
        if is_postgres(conn):
            return f"{POSTGRES_SCHEMA}."
        database = conn.execute("SELECT current_database()").fetchone()[0].replace('"', '""')
        return f'"{database}".main.'

    @staticmethod
    def lock_task(conn: Connection, task_id: str) -> None:
        """Within a transaction, wait for any other transaction writing the task's rows (in Postgres,
        where writers run side by side; DuckDB's one writer at a time needs nothing)."""
        if is_postgres(conn):
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(?))", [f"lyra task {task_id}"])

    def _show_staged(self, conn: Connection, task_id: str, run_id: str) -> None:
        """Within a staging run, the task's rows in every per-task table are the run's staged rows:
        temporary views shadow the tables, so the assets' own SQL reads the generation being built."""
        views = []
        schema = self._real_schema(conn)  # asked once: every connection of a staging run pays this
        for name in PER_TASK_TABLES:
            cols = ", ".join(TABLES[name].column_names)
            views.append(
                f"CREATE TEMP VIEW {name} AS SELECT {cols} FROM {schema}{name} "
                f"WHERE task_id <> {sql_literal(task_id)} UNION ALL SELECT {cols} FROM {STAGE_PREFIX}{name} "
                f"WHERE run_id = {sql_literal(run_id)}"
            )
        conn.execute("; ".join(views))  # one statement list: one round trip to a Postgres server

    # -- reads ---------------------------------------------------------------------------------

    def fetch_df(self, sql: str, params: Sequence[Any] | None = None) -> pd.DataFrame:
        """Run a read query written by Lyra's own code (never by an agent or user)."""
        with self.connect() as conn:
            return conn.execute(sql, params or []).df()

    def read_partition(self, table: str, task_id: str) -> pd.DataFrame:
        spec = table_spec(table, per_task=True)
        cols = ", ".join(spec.column_names)
        return self.fetch_df(f"SELECT {cols} FROM {spec.name} WHERE task_id = ? ORDER BY {cols}", [task_id])

    def row_counts(self, task_id: str) -> dict[str, int]:
        """The task's row count in every per-task table, in one query."""
        union = " UNION ALL ".join(
            f"SELECT {i} AS k, count(*) AS n FROM {table} WHERE task_id = $1"
            for i, table in enumerate(PER_TASK_TABLES)
        )
        with self.connect() as conn:
            counts = dict(conn.execute(union, [task_id]).fetchall())
        return {table: int(counts[i]) for i, table in enumerate(PER_TASK_TABLES)}

    # -- partition writes ----------------------------------------------------------------------

    def parquet_path(self, table: str, task_id: str) -> Path:
        """The task's rows of ``table`` in the generation readers see now (a path through the
        task's ``current`` link, see ``lyra_resources.store.parquet_files``)."""
        return parquet_files.table_file(self.layout.parquet, table, task_id)

    def replace_partition(self, table: str, task_id: str, frame: pd.DataFrame) -> int:
        """Atomically replace one task's rows of ``table`` with ``frame``; returns the row count
        (the one-table case of ``replace_partitions``)."""
        return self.replace_partitions(task_id, {table: frame})[table]

    def replace_partitions(self, task_id: str, frames: Mapping[str, pd.DataFrame]) -> dict[str, int]:
        """Replace one task's rows of every table in ``frames`` (table name → rows) in one
        transaction; returns each table's row count.

        The rows of every table are swapped in one transaction (which marks the task's published
        generation as not yet exported, so files a killed process never wrote are written by the
        next export), then the task's Parquet files are switched to a new generation at once
        (``export_task``): readers see the old rows of all the tables or the new rows of all."""
        specs = {table: table_spec(table, per_task=True) for table in frames}
        conformed = {
            table: (specs[table], conform(specs[table], task_id, frame)) for table, frame in frames.items()
        }
        if self._staged is not None:
            return self._stage_rows(task_id, conformed)

        def swap(conn: Connection) -> None:
            self.lock_task(conn, task_id)
            for name, (_, frame) in conformed.items():
                swap_rows(conn, name, "task_id", task_id, frame)
            conn.execute(
                "UPDATE task_generations SET exported_at = NULL WHERE task_id = ? AND state = 'published'",
                [task_id],
            )

        self.transaction(swap)
        self.export_task(task_id)
        return {name: len(frame) for name, (_, frame) in conformed.items()}

    def _stage_rows(
        self, task_id: str, conformed: Mapping[str, tuple[TableSpec, pd.DataFrame]]
    ) -> dict[str, int]:
        """Replace the staged rows of the tables for the run this store serves, in one transaction
        (Parquet follows at publish)."""
        staged_task, run_id = self._staged
        if task_id != staged_task:
            raise StoreError(f"this run stages task {staged_task}; it cannot write rows of {task_id}")

        def swap(conn: Connection) -> None:
            self.lock_task(conn, task_id)
            for name, (_, frame) in conformed.items():
                swap_rows(conn, STAGE_PREFIX + name, "run_id", run_id, frame.assign(run_id=run_id))

        self.transaction(swap)
        return {name: len(frame) for name, (_, frame) in conformed.items()}

    def export_task(self, task_id: str) -> str | None:
        """Write the task's per-task tables, as the database holds them, as a new Parquet generation
        and switch readers to it; returns the run whose published generation that is (recorded as
        exported; None: the task has none). Rows and run are read in one transaction under the
        task's lock, so they match; one exporter of a task at a time (``task_files_lock``)."""
        root = self.layout.parquet

        def read(conn: Connection) -> tuple[tuple | None, dict[str, tuple[TableSpec, pd.DataFrame]]]:
            self.lock_task(conn, task_id)
            return read_task_tables(conn, task_id, self.real_table)

        with parquet_files.task_files_lock(root, task_id):
            published, tables = self.transaction(read)
            run_id, published_at = published if published else (None, None)
            parquet_files.write_generation(
                root,
                task_id,
                tables,
                {"run_id": run_id, "published_at": published_at, "written_at": utcnow()},
            )
            if run_id is not None:
                self.transaction(
                    lambda conn: conn.execute(
                        "UPDATE task_generations SET exported_at = ? WHERE run_id = ? AND state = 'published'",
                        [utcnow(), run_id],
                    )
                )
        return run_id

    def delete_task(self, task_id: str) -> dict[str, int]:
        """Remove every per-task row and Parquet file of one task, and its ``tasks`` row."""

        def drop(conn: Connection) -> dict[str, int]:
            self.lock_task(conn, task_id)
            return delete_task_rows(conn, task_id)

        removed = self.transaction(drop)
        parquet_files.remove_task_files(self.layout.parquet, task_id, list(PER_TASK_TABLES))
        return removed

    # -- tasks ---------------------------------------------------------------------------------

    def create_task(
        self, query: str, options: dict[str, Any] | None = None, task_id: str | None = None
    ) -> TaskRecord:
        record = new_task(query, options, task_id)

        def insert(conn: Connection) -> None:
            if conn.execute("SELECT 1 FROM tasks WHERE id = ?", [record.id]).fetchone():
                raise StoreError(f"task {record.id} already exists")
            conn.execute(
                "INSERT INTO tasks (id, query, created_at, status, options, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    record.id,
                    record.query,
                    record.created_at,
                    record.status,
                    json.dumps(record.options),
                    record.updated_at,
                ],
            )

        self.transaction(insert)
        return record

    def get_task(self, task_id: str) -> TaskRecord | None:
        with self.connect() as conn:
            rows = fetch_rows(conn, "SELECT * FROM tasks WHERE id = ?", [task_id])
        return task_from_row(rows[0]) if rows else None

    def require_task(self, task_id: str) -> TaskRecord:
        task = self.get_task(task_id)
        if task is None:
            raise StoreError(f"no task {task_id!r} in {self.where} (see `lyra task list`)")
        return task

    def list_tasks(self) -> list[TaskRecord]:
        with self.connect() as conn:
            rows = fetch_rows(conn, "SELECT * FROM tasks ORDER BY created_at, id")
        return [task_from_row(r) for r in rows]

    def update_task(self, task_id: str, **fields: Any) -> None:
        assignments, values = task_update(fields)
        self.transaction(
            lambda conn: conn.execute(f"UPDATE tasks SET {assignments} WHERE id = ?", [*values, task_id])
        )
