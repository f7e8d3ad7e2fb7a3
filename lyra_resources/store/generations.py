"""Generations of a task's graph: a run builds the next one aside and publishes it at once.

A run of the task pipeline (or of ``nli_rescoring``) starts from a copy of the task's published
rows in ``stage_<table>``, keyed by its run id; its assets read and write only those rows (the
store shadows the tables while it serves the run). Its last asset publishes them: one database
transaction swaps every per-task table of the task, and the Parquet files follow after the commit
as a generation folder of their own, switched in at once (``lyra_resources.store.parquet_files``). A run
killed or failed before the commit leaves the published generation untouched, so every reader
(MCP, CLI, reports, the Parquet files) sees either the whole previous materialization or the whole
new one; a process killed between the commit and the switch leaves the files at the previous
generation, whole, until ``finish_exports`` (the next run, or whoever reconciles the task with
its runs) writes the new one.
"""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel

from lyra_core.scoring import ScoringRule
from lyra_resources.schema import PER_TASK_TABLES, STAGE_PREFIX, TABLES
from lyra_resources.store.lyra_store import LyraStore, StoreError
from lyra_resources.store.sql import Connection


class Generation(BaseModel):
    """One run's generation of a task's graph."""

    run_id: str
    task_id: str
    state: (
        str  # building, published, replaced (by a later one), abandoned (run died), superseded (re-executed)
    )
    started_at: datetime | None = None
    published_at: datetime | None = None
    exported_at: datetime | None = None
    inputs_digest: str | None = None  # what the run read (``lyra_resources.store.run_inputs``)


_GENERATION_COLUMNS = "run_id, task_id, state, started_at, published_at, exported_at, inputs_digest"


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def open_generation(
    store: LyraStore, task_id: str, run_id: str, parent_run_id: str | None = None, *, partial: bool = False
) -> None:
    """Start (or rejoin) ``run_id``'s generation of ``task_id`` and make ``store`` serve it.

    Idempotent, since every step process of a run opens it. A re-execution of a failed run
    continues its parent's staged rows; any other unpublished generation of the task (a run that
    was killed or failed) is abandoned and its rows dropped. A ``partial`` re-execution (only some
    steps, e.g. from failure) whose parent's rows are gone is refused: it would publish the steps
    it runs beside the previous generation's other tables. Once the run's generation is published,
    the store serves the tables themselves (the steps after the publish read what it published).
    """
    finish_exports(store, task_id)

    def begin(conn: Connection) -> bool:
        store.lock_task(conn, task_id)
        if row := conn.execute("SELECT state FROM task_generations WHERE run_id = ?", [run_id]).fetchone():
            return row[0] not in ("published", "replaced")  # published: nothing left to stage
        continues = (
            parent_run_id is not None
            and conn.execute(
                "SELECT 1 FROM task_generations WHERE run_id = ? AND state = 'building'", [parent_run_id]
            ).fetchone()
        )
        if partial and parent_run_id is not None and not continues:
            raise StoreError(
                f"run {run_id} re-executes part of run {parent_run_id}, whose staged rows are gone (it "
                f"was killed, stopped or replaced); re-run the whole task: `lyra task run {task_id}`"
            )
        for name in PER_TASK_TABLES:
            stage = STAGE_PREFIX + name
            if continues:
                conn.execute(f"UPDATE {stage} SET run_id = ? WHERE run_id = ?", [run_id, parent_run_id])
            conn.execute(f"DELETE FROM {stage} WHERE task_id = ? AND run_id <> ?", [task_id, run_id])
            if not continues:
                cols = ", ".join(TABLES[name].column_names)
                conn.execute(
                    f"INSERT INTO {stage} (run_id, {cols}) SELECT ?, {cols} "
                    f"FROM {LyraStore.real_table(conn, name)} WHERE task_id = ?",
                    [run_id, task_id],
                )
        conn.execute(
            "UPDATE task_generations SET state = CASE WHEN run_id = ? THEN 'superseded' ELSE 'abandoned' END "
            "WHERE task_id = ? AND state = 'building'",
            [parent_run_id or "", task_id],
        )
        # the generation starts as a copy of the rows it continues, and so does the rule they were scored under
        # (a run that re-uses the scores, ``lyra_assets.reuse``, keeps it)
        source = (
            ("run_id = ?", parent_run_id) if continues else ("task_id = ? AND state = 'published'", task_id)
        )
        conn.execute(
            "INSERT INTO task_generations (run_id, task_id, state, started_at, scoring_rule) "
            f"VALUES (?, ?, 'building', ?, (SELECT scoring_rule FROM task_generations WHERE {source[0]} LIMIT 1))",
            [run_id, task_id, _now(), source[1]],
        )
        return True

    # a step after the publish (the report, in its own process) reads the published tables themselves
    if store.transaction(begin):
        store._staged = (task_id, run_id)


def publish_generation(store: LyraStore, task_id: str, run_id: str) -> dict[str, int]:
    """Make ``run_id``'s staged rows the task's rows in one transaction, then rewrite its Parquet
    files; returns the row count of each table. Refused when the generation is not ``building``
    (a later run abandoned it)."""

    def swap(conn: Connection) -> dict[str, int]:
        store.lock_task(conn, task_id)
        row = conn.execute(
            "SELECT state FROM task_generations WHERE run_id = ? AND task_id = ?", [run_id, task_id]
        ).fetchone()
        if row is None or row[0] != "building":
            raise StoreError(
                f"run {run_id} has no generation of {task_id} to publish "
                f"({row[0] if row else 'none was staged'}); re-run the task with `lyra task run {task_id}`"
            )
        counts = {}
        for name in PER_TASK_TABLES:
            cols = ", ".join(TABLES[name].column_names)
            table = LyraStore.real_table(conn, name)
            conn.execute(f"DELETE FROM {table} WHERE task_id = ?", [task_id])
            conn.execute(
                f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {STAGE_PREFIX}{name} WHERE run_id = ?",
                [run_id],
            )
            counts[name] = conn.execute(
                f"SELECT count(*) FROM {table} WHERE task_id = ?", [task_id]
            ).fetchone()[0]
            conn.execute(f"DELETE FROM {STAGE_PREFIX}{name} WHERE run_id = ?", [run_id])
        conn.execute(
            "UPDATE task_generations SET state = 'replaced' WHERE task_id = ? AND state = 'published'",
            [task_id],
        )
        conn.execute(
            "UPDATE task_generations SET state = 'published', published_at = ? WHERE run_id = ?",
            [_now(), run_id],
        )
        return counts

    counts = store.transaction(swap)
    store._staged = None  # the generation is the task's now; the store reads the tables themselves again
    finish_exports(store, task_id)
    return counts


def finish_exports(store: LyraStore, task_id: str) -> None:
    """Write the Parquet generation of the task's published graph if a process died between the
    commit and the switch of the files (they follow the database, never lead it)."""
    latest = published_generation(store, task_id)
    if latest is None or latest.exported_at is not None:
        return
    store.export_task(task_id)


def abandon_generation(store: LyraStore, task_id: str, run_id: str) -> bool:
    """Drop the staged rows of ``run_id``'s generation of the task if it is still ``building`` (its
    run died or was stopped); returns whether it did."""

    def drop(conn: Connection) -> bool:
        store.lock_task(conn, task_id)
        row = conn.execute(
            "SELECT state FROM task_generations WHERE run_id = ? AND task_id = ?", [run_id, task_id]
        ).fetchone()
        if row is None or row[0] != "building":
            return False
        for name in PER_TASK_TABLES:
            conn.execute(f"DELETE FROM {STAGE_PREFIX}{name} WHERE run_id = ?", [run_id])
        conn.execute("UPDATE task_generations SET state = 'abandoned' WHERE run_id = ?", [run_id])
        return True

    return store.transaction(drop)


def record_scoring_rule(store: LyraStore, run_id: str, rule: ScoringRule) -> None:
    """Keep with ``run_id``'s generation the scoring rule its claims were scored under, so that views
    of the task re-score corrected claims as the run did, whatever the settings file says later."""
    store.transaction(
        lambda conn: conn.execute(
            "UPDATE task_generations SET scoring_rule = ? WHERE run_id = ?", [rule.model_dump_json(), run_id]
        )
    )


def record_run_inputs(store: LyraStore, run_id: str, digest: str | None) -> None:
    """Keep with ``run_id``'s generation the digest of what it read (``lyra_resources.store.run_inputs``)."""
    store.transaction(
        lambda conn: conn.execute(
            "UPDATE task_generations SET inputs_digest = ? WHERE run_id = ?", [digest, run_id]
        )
    )


def published_scoring_rule(conn: Connection, task_id: str) -> ScoringRule | None:
    """The scoring rule of the run whose graph readers see (None: no run recorded one)."""
    row = conn.execute(
        "SELECT scoring_rule FROM task_generations WHERE task_id = ? AND state = 'published' "
        "AND scoring_rule IS NOT NULL LIMIT 1",
        [task_id],
    ).fetchone()
    if row is None:
        return None
    return (
        ScoringRule.model_validate_json(row[0])
        if isinstance(row[0], str)
        else ScoringRule.model_validate(row[0])
    )


def _generation(store: LyraStore, sql: str, params: list) -> Generation | None:
    with store.connect() as conn:
        cursor = conn.execute(
            f"SELECT {_GENERATION_COLUMNS} FROM task_generations WHERE {sql} LIMIT 1", params
        )
        names = [d[0] for d in cursor.description]
        row = cursor.fetchone()
    return Generation(**dict(zip(names, row, strict=True))) if row else None


def recent_generations(store: LyraStore, task_id: str, limit: int = 5) -> list[Generation]:
    """The task's latest ``limit`` runs that staged a graph, newest first: what each left (building,
    published, replaced …), read from the store alone (no Dagster instance is opened)."""
    with store.connect() as conn:
        cursor = conn.execute(
            f"SELECT {_GENERATION_COLUMNS} FROM task_generations WHERE task_id = ? "
            "ORDER BY started_at DESC LIMIT ?",
            [task_id, limit],
        )
        names = [d[0] for d in cursor.description]
        return [Generation(**dict(zip(names, row, strict=True))) for row in cursor.fetchall()]


def published_generation(store: LyraStore, task_id: str) -> Generation | None:
    """The generation readers see now (None for a task never published through a generation)."""
    return _generation(store, "task_id = ? AND state = 'published'", [task_id])


def generation_of(store: LyraStore, run_id: str) -> Generation | None:
    return _generation(store, "run_id = ?", [run_id])


def graph_note(store: LyraStore, task_id: str) -> str | None:
    """One line for readers when the graph they see is not the latest run's: what it is and what to do."""
    task = store.require_task(task_id)
    if task.status == "completed" or (task.status == "created" and not task.last_run_id):
        return None
    published = published_generation(store, task_id)
    shown = (
        f"the graph shown is the one run {published.run_id} published at {published.published_at:%Y-%m-%d %H:%M} UTC"
        if published and published.published_at
        else "the graph shown is from an earlier run, if any"
    )
    run = f"run {task.last_run_id}" if task.last_run_id else "the task's run"
    if published and published.run_id == task.last_run_id:  # it published, then ended without saying so
        return f"{shown}; {task.error}" if task.error else None
    if task.status in ("running", "queued"):
        return f"{shown}; {run} is building the next one and replaces it whole when it finishes"
    return f"{shown}: {run} {task.status} before publishing its own (re-run with `lyra task run {task_id}`)"
