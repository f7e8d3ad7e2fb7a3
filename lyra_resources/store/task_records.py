"""A task's row in the store (``tasks``): the research question, its options and its status."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field


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
