"""The long-lived server's reads from memory: a task's published generation from its Parquet files,
and the few small tables every read consults, copied from the database when it changes.

Attaching the database file costs about 15 ms of CPU a call at 500 tasks, and holds its lock while
the call reads. But a task's graph is immutable between runs: the store writes each generation of a
task's tables as a Parquet folder of its own and switches the task's ``current`` link to it at once
(``lyra_resources.store.parquet_files``). So the server reads a call's tables from that folder
through an in-memory DuckDB: a view per table the call's SQL names, made once per generation, and
copied into memory once the task is asked about a third time (an agent exploring it). What changes
between runs (the task rows, their generations, the feedback, the model versions) is small: it is
copied from the database in one ATTACH whenever the store's change stamp moves
(``lyra_resources.store.change_stamp``), so a correction is seen by the very next read, and between
writes no call touches the file or its lock. Query results are kept per copy: they cannot change
while it stands.

Whatever the copy cannot answer exactly raises :class:`NotInSnapshot` and the call is answered from
the file as before: a generation not yet exported (or exported for another run than the one
published), a task without Parquet files, a statement that writes, a table outside the copy.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from lyra_resources.schema import PER_TASK_TABLES, TABLES
from lyra_resources.store import change_stamp
from lyra_resources.store.parquet_files import CURRENT, DATA_FILE, GENERATIONS, MANIFEST
from lyra_resources.store.snapshot_cursor import NotInSnapshot, SnapshotCursor
from lyra_resources.store.sql import sql_literal

# the tables that are not per task yet read by the read tools: small, copied whole on a change
HOME_TABLES = (
    "tasks",
    "task_generations",
    "edge_reviews",
    "claim_rejections",
    "domain_override_rules",
    "feedback_events",
    "nli_model_versions",
)
HOME_NAMES = frozenset(HOME_TABLES)
# the feedback log grows with every call: what the reads count, without its payloads
HOME_COLUMNS = {"feedback_events": "* EXCLUDE (payload, outcome)"}
KEPT_GENERATIONS = 4096  # generations whose views stay defined (catalog entries only, no rows)
PROMOTE_AT = 3  # the call on a generation that copies its tables into memory: a task being explored
PROMOTED_KEPT = 16  # generations kept as copies (a few MB each); the least recently used go back to views
_NAMES = re.compile(r"\b(" + "|".join(sorted(TABLES, key=len, reverse=True)) + r")\b")
_READS = ("SELECT", "WITH", "(", "DESCRIBE", "SHOW")
EMPTY = "lyra_empty"  # every per-task table, empty: the shape a generation's missing file has


@dataclass
class _Home:
    """One copy of the home's small tables, and when it was taken."""

    schema: str
    stamp: change_stamp.Stamp
    published: dict[str, tuple[str, bool]]  # task → (published run, exported)
    users: int = 0
    memo: dict[tuple[Any, ...], tuple[Any, list[tuple[Any, ...]]]] = field(default_factory=dict)


@dataclass
class _Generation:
    """One task generation's folder and the tables loaded from it so far."""

    task_id: str
    folder: Path
    schema: str
    run_id: str | None
    rows: dict[str, int]
    loaded: set[str] = field(default_factory=set)  # tables asked for
    viewed: set[str] = field(default_factory=set)  # those with rows: a view (a table once promoted)
    lock: threading.Lock = field(default_factory=threading.Lock)
    users: int = 0
    uses: int = 0
    kind: str = "VIEW"  # TABLE once promoted: its rows copied into memory
    memo: dict[tuple[Any, ...], tuple[Any, list[tuple[Any, ...]]]] = field(default_factory=dict)


class SnapshotReader:
    """In-memory copies in ``instance`` (the server's DuckDB instance); ``attached`` yields a cursor
    on it with the database file attached as ``lyra`` (the server's usual path)."""

    def __init__(
        self,
        database: Path,
        parquet_root: Path,
        instance: duckdb.DuckDBPyConnection,
        attached: Callable[[], contextlib.AbstractContextManager[duckdb.DuckDBPyConnection]],
    ) -> None:
        self.database, self.parquet_root = database, parquet_root
        self.instance, self.attached = instance, attached
        self._lock = threading.Lock()  # the maps below, and one refresh at a time
        self._home: _Home | None = None
        self._retired: list[_Home] = []
        self._generations: OrderedDict[str, _Generation] = OrderedDict()
        self._serial = 0
        self._statements: dict[str, tuple[bool, frozenset[str]]] = {}
        self._claims: tuple[change_stamp.Stamp, str] | None = None
        ddl = "; ".join(
            TABLES[t].ddl().replace("PRIMARY KEY", "").replace(f"EXISTS {t} (", f"EXISTS {EMPTY}.{t} (")
            for t in PER_TASK_TABLES
        )
        self._run(f"CREATE SCHEMA IF NOT EXISTS memory.{EMPTY}; {ddl}")

    # -- the calls ---------------------------------------------------------------------------------

    @contextlib.contextmanager
    def cursor(self, task_id: str | None) -> Iterator[SnapshotCursor]:
        """A cursor over the home's small tables and, for ``task_id``, the task's generation."""
        home = self._current_home()
        generation = None
        try:
            if task_id is not None:
                generation = self._generation(task_id, home)
            cursor = self.instance.cursor()
            try:
                schemas = ([generation.schema] if generation else []) + [home.schema, EMPTY]
                path = ",".join(f"memory.{s}" for s in schemas)
                cursor.execute(f"SET search_path = '{path}'")
                yield SnapshotCursor(self, cursor, home, generation)
            finally:
                cursor.close()
        finally:
            with self._lock:
                home.users -= 1
                if generation is not None:
                    generation.users -= 1
                self._sweep()

    def rows(self, generation: _Generation | None, task_id: str) -> dict[str, int] | None:
        """The task's row count per table, as its generation's manifest recorded them."""
        if generation is None or generation.task_id != task_id:
            return None
        return {t: int(generation.rows.get(t, 0)) for t in PER_TASK_TABLES}

    def task_of_claim(self, claim_id: str) -> str | None:
        """The task holding ``claim_id`` in the copy of the claim index; None where the index (taken
        again if the store changed since) has no such claim."""
        for attempt in range(2):
            with self._lock:
                index = self._claims
            stamp = change_stamp.read_stamp(self.database)
            if index is not None:
                found = self._run(
                    f"SELECT task_id FROM memory.{index[1]} WHERE claim_id = ? LIMIT 1", [claim_id]
                )
                if found or index[0] == stamp or attempt:
                    return found[0][0] if found else None
            name = self._fresh_name("claims")
            with self.attached() as conn:
                conn.execute(f"CREATE TABLE memory.{name} AS SELECT claim_id, task_id FROM lyra.main.claims")
            with self._lock:
                old, self._claims = self._claims, (stamp, name)
            if old is not None:
                self._run(f"DROP TABLE IF EXISTS memory.{old[1]}")
        return None

    def prepare(self, sql: str, generation: _Generation | None) -> bool:
        """Load the per-task tables ``sql`` names (returns whether it names any); refuse what the
        copy cannot answer."""
        known = self._statements.get(sql)
        if known is None:
            head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
            known = (head.startswith(_READS), frozenset(_NAMES.findall(sql)))
            self._statements[sql] = known
        reads, names = known
        if not reads:
            raise NotInSnapshot("a statement that writes")
        for name in names:
            if name in HOME_TABLES:
                continue
            if name not in PER_TASK_TABLES or generation is None:
                raise NotInSnapshot(f"table {name} is not in the copy")
            if name not in generation.loaded:
                self._load(generation, name)
        return not names <= HOME_NAMES

    # -- the home's small tables -------------------------------------------------------------------

    def _current_home(self) -> _Home:
        """The copy of the small tables as the stamp stands now (taken again if it moved); counted as used."""
        stamp = change_stamp.read_stamp(self.database)
        with self._lock:
            home = self._home
            if home is not None and home.stamp == stamp:
                home.users += 1
                return home
        fresh = self._copy_home(stamp)
        with self._lock:
            if self._home is not None:
                self._retired.append(self._home)
            self._home = fresh
            fresh.users += 1
            self._sweep()
            return fresh

    def _copy_home(self, stamp: change_stamp.Stamp) -> _Home:
        schema = self._fresh_name("home")
        with self.attached() as conn:
            conn.execute("BEGIN TRANSACTION")
            try:
                conn.execute(
                    f"CREATE SCHEMA memory.{schema}; "
                    + "; ".join(
                        f"CREATE TABLE memory.{schema}.{t} AS SELECT {HOME_COLUMNS.get(t, '*')} FROM lyra.main.{t}"
                        for t in HOME_TABLES
                    )
                )
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(duckdb.Error):
                    conn.execute("ROLLBACK")
                raise
            published = {
                task: (run_id, exported is not None)
                for task, run_id, exported in conn.execute(
                    f"SELECT task_id, run_id, exported_at FROM memory.{schema}.task_generations "
                    "WHERE state = 'published'"
                ).fetchall()
            }
        return _Home(schema=schema, stamp=stamp, published=published)

    # -- a task's generation -----------------------------------------------------------------------

    def _generation(self, task_id: str, home: _Home) -> _Generation:
        """The task's current generation, counted as used; NotInSnapshot where its files are not
        the graph the database publishes."""
        link = self.parquet_root / GENERATIONS / task_id / CURRENT
        try:
            folder = link.parent / os.readlink(link)
        except (OSError, ValueError):
            raise NotInSnapshot(f"task {task_id} has no Parquet generation") from None
        key = str(folder)
        with self._lock:
            generation = self._generations.get(key)
            if generation is not None:
                self._generations.move_to_end(key)
        if generation is None:
            try:
                manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                raise NotInSnapshot(f"task {task_id}'s generation has no manifest") from None
            generation = _Generation(
                task_id=task_id,
                folder=folder,
                schema=self._fresh_name("gen"),
                run_id=manifest.get("run_id"),
                rows=dict(manifest.get("rows") or {}),
            )
            self._run(f"CREATE SCHEMA memory.{generation.schema}")
            with self._lock:
                generation = self._generations.setdefault(key, generation)
        published = home.published.get(task_id)
        if (published is None and generation.run_id is not None) or (
            published is not None and (not published[1] or published[0] != generation.run_id)
        ):
            raise NotInSnapshot(f"task {task_id}'s Parquet files are not its published graph yet")
        with self._lock:
            generation.users += 1
            generation.uses += 1
            promote = generation.uses == PROMOTE_AT
            self._sweep()
        if promote:
            self._promote(generation)
        return generation

    def _promote(self, generation: _Generation) -> None:
        """Copy the generation's viewed tables into memory: a task asked about again and again (an
        agent exploring it) is then read without its files (a view reads its file on every query)."""
        with generation.lock:
            generation.kind = "TABLE"
            for name in sorted(generation.viewed):
                target = f"memory.{generation.schema}.{name}"
                try:
                    self._run(
                        f"BEGIN TRANSACTION; CREATE TABLE {target}_copy AS SELECT * FROM {target}; "
                        f"DROP VIEW {target}; ALTER TABLE {target}_copy RENAME TO {name}; COMMIT"
                    )
                except duckdb.Error:  # its folder swept by a newer export: the next call reads that one
                    return

    def _load(self, generation: _Generation, name: str) -> None:
        """A view of the generation's rows of table ``name`` in its schema, with the contract's columns
        (NULL for a column the generation was written without). A view holds no rows: the file is read
        by each query (a view costs a third of a copy to make and DuckDB's planning, not the read,
        is most of a query), and a generation costs catalog entries only."""
        with generation.lock:
            if name in generation.loaded:
                return
            spec = TABLES[name]
            path = generation.folder / name / DATA_FILE
            if not generation.rows.get(name, 1) or not path.exists():
                # no rows (most tasks leave half the tables empty): the search path's last schema,
                # where every per-task table is empty, answers for it; no view, no file read
                generation.loaded.add(name)
                return
            quoted = str(path).replace("'", "''")
            source = f"(SELECT {sql_literal(generation.task_id)} AS task_id, * FROM read_parquet('{quoted}'))"
            view = f"CREATE {generation.kind} memory.{generation.schema}.{name} AS SELECT "
            try:
                self._run(view + f"{', '.join(spec.column_names)} FROM {source}")
            except duckdb.BinderException:  # written before some column existed: NULL there
                have = {r[0] for r in self._run(f"DESCRIBE SELECT * FROM {source}")}
                columns = [
                    c.name if c.name in have else f"CAST(NULL AS {c.type}) AS {c.name}" for c in spec.columns
                ]
                self._run(view + f"{', '.join(columns)} FROM {source}")
            except duckdb.IOException as exc:  # the folder swept by a newer export
                raise NotInSnapshot(f"table {name} of {generation.folder} could not be read: {exc}") from exc
            generation.loaded.add(name)
            generation.viewed.add(name)

    # -- housekeeping ------------------------------------------------------------------------------

    def _fresh_name(self, kind: str) -> str:
        with self._lock:
            self._serial += 1
            return f"lyra_{kind}_{self._serial}"

    def _sweep(self) -> None:
        """Drop retired home copies and the least recently used generations past KEPT_GENERATIONS
        that no call uses (called holding the lock)."""
        drop = [h.schema for h in self._retired if h.users == 0]
        self._retired = [h for h in self._retired if h.users]
        excess = len(self._generations) - KEPT_GENERATIONS
        copies = sum(g.kind == "TABLE" for g in self._generations.values()) - PROMOTED_KEPT
        for key, generation in list(self._generations.items()):  # least recently used first
            if excess <= 0 and copies <= 0:
                break
            if generation.users == 0 and (excess > 0 or generation.kind == "TABLE"):
                del self._generations[key]
                drop.append(generation.schema)
                excess -= 1
                copies -= generation.kind == "TABLE"
        for schema in drop:
            self._run(f"DROP SCHEMA IF EXISTS memory.{schema} CASCADE")

    def _run(self, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
        """Statements on a cursor of their own (the instance's own connection is not shared
        between threads); the rows of a query."""
        cursor = self.instance.cursor()
        try:
            cursor.execute(sql, params or [])
            return cursor.fetchall() if cursor.description else []
        finally:
            cursor.close()

    def close(self) -> None:
        with self._lock:
            self._generations.clear()
            self._home = None
