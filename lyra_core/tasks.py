"""What a task asks for: the options recorded with it when it is created."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class TaskOptions(BaseModel):
    """Options stored in ``tasks.options``; every later run of the task reads them."""

    model_config = ConfigDict(extra="forbid")
    corpus: list[str] = Field(default_factory=list, description="local corpus files or folders to search")
    papers_per_source: int | None = Field(None, ge=1, le=1000, description="overrides the setting")
