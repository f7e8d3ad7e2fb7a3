"""A task's row in the store (``tasks``): the research question, its options and its status."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from lyra_resources.store.locks import StoreError


class TaskRecord(BaseModel):
    """One task: its question, options (JSON in the table) and where its runs stand."""

    id: str
    query: str
    created_at: datetime
    status: str
    options: dict[str, Any] = Field(default_factory=dict)
    updated_at: datetime | None = None
    last_run_id: str | None = None
    error: str | None = None


TASK_STATUSES = ("created", "queued", "running", "completed", "failed", "stopped")


def utcnow() -> datetime:
    """Now in UTC, naive, as the store's TIMESTAMP columns hold it."""
    return datetime.now(UTC).replace(tzinfo=None)


def task_from_row(row: dict[str, Any]) -> TaskRecord:
    """A ``tasks`` row as the database gives it (NULLs as None, options as JSON text) as a TaskRecord."""
    options = row.get("options")
    return TaskRecord.model_validate(
        {**row, "options": json.loads(options) if isinstance(options, str) and options else {}}
    )


def new_task(query: str, options: dict[str, Any] | None, task_id: str | None) -> TaskRecord:
    """A task as ``create_task`` records it: the question's whitespace collapsed (refused when
    empty), status ``created``, a fresh id unless one is given."""
    query = " ".join((query or "").split())
    if not query:
        raise StoreError("a task needs a non-empty research question")
    now = utcnow()
    return TaskRecord(
        id=task_id or f"task_{uuid.uuid4().hex[:8]}",
        query=query,
        created_at=now,
        status="created",
        options=options or {},
        updated_at=now,
    )


def task_update(fields: dict[str, Any]) -> tuple[str, list[Any]]:
    """The SET clause and its values for ``update_task``'s ``fields``: only the fields a task's
    life changes, a known status, options as JSON, and the time of the change."""
    unknown = set(fields) - {"status", "options", "last_run_id", "error"}
    if unknown:
        raise StoreError(f"cannot update task fields {sorted(unknown)}")
    if "status" in fields and fields["status"] not in TASK_STATUSES:
        raise StoreError(f"unknown task status {fields['status']!r}")
    values = {**fields, "updated_at": utcnow()}
    if "options" in values:
        values["options"] = json.dumps(values["options"])
    return ", ".join(f"{k} = ?" for k in values), list(values.values())
