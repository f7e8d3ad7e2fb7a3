"""Runs of a task's pipeline asked of the cluster's run queue (``run_requests``).

In the cluster profile a task's run is not created by the process that asks for it: the request is
a row here, and a sensor that Dagster's daemon evaluates (``lyra_assets.execution.run_queue``)
turns each row into a ``RunRequest`` whose run key and ``lyra/run_request`` tag are the request's
id. A row stays until the run it asked for exists (``settle``), so a request is never lost between
the store and Dagster's run storage and, through the run key, never run twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime

from pydantic import BaseModel

from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.sql import Connection, fetch_rows
from lyra_resources.store.task_records import utcnow


class RunRequestRow(BaseModel):
    """One pending request: the run of ``task_id`` it asks for, not yet created."""

    request_id: str
    task_id: str
    requested_at: datetime


def add(store: LyraStore, task_id: str) -> str:
    """Ask for a run of the task's pipeline; returns the request's id."""
    request_id = f"request_{uuid.uuid4().hex}"
    store.transaction(
        lambda conn: conn.execute(
            "INSERT INTO run_requests (request_id, task_id, requested_at) VALUES (?, ?, ?)",
            [request_id, task_id, utcnow()],
        )
    )
    return request_id


def pending(store: LyraStore, task_id: str | None = None) -> list[RunRequestRow]:
    """The requests not yet settled, oldest first (of one task, when given)."""
    where, params = ("WHERE task_id = ?", [task_id]) if task_id is not None else ("", [])
    with store.connect() as conn:
        rows = fetch_rows(
            conn, f"SELECT * FROM run_requests {where} ORDER BY requested_at, request_id", params
        )
    return [RunRequestRow.model_validate(r) for r in rows]


def withdraw(store: LyraStore, task_id: str) -> list[str]:
    """Remove the task's pending requests (its run was stopped before Dagster created it); returns
    their ids."""

    def remove(conn: Connection) -> list[str]:
        ids = [
            r[0]
            for r in conn.execute(
                "SELECT request_id FROM run_requests WHERE task_id = ?", [task_id]
            ).fetchall()
        ]
        conn.execute("DELETE FROM run_requests WHERE task_id = ?", [task_id])
        return ids

    return store.transaction(remove)


def settle(
    store: LyraStore, has_run: Callable[[str], bool], task_id: str | None = None
) -> list[RunRequestRow]:
    """Remove the requests whose run exists (``has_run(request_id)``) and return those still pending."""
    requests = pending(store, task_id)
    done = [r.request_id for r in requests if has_run(r.request_id)]
    if done:
        marks = ", ".join("?" for _ in done)
        store.transaction(
            lambda conn: conn.execute(f"DELETE FROM run_requests WHERE request_id IN ({marks})", done)
        )
    return [r for r in requests if r.request_id not in done]
