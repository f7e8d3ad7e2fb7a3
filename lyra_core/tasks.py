"""What a task asks for: the options recorded with it when it is created."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator


class TaskOptions(BaseModel):
    """Options stored in ``tasks.options``; every later run of the task reads them."""

    model_config = ConfigDict(extra="forbid")
    corpus: list[str] = Field(default_factory=list, description="local corpus files or folders to search")
    papers_per_source: int | None = Field(None, ge=1, le=1000, description="overrides the setting")
    claims: list[str] = Field(default_factory=list, description="claims the user asks Lyra to verify")

    @field_validator("claims")
    @classmethod
    def _clean_claims(cls, claims: list[str]) -> list[str]:
        cleaned = [" ".join(c.split()) for c in claims]
        for claim in cleaned:
            if len(claim) < 10:
                raise ValueError(f"claim {claim!r} is too short to verify (10 characters at least)")
            if len(claim) > 1000:
                raise ValueError(f"claim {claim[:40]!r}… is longer than 1,000 characters")
        return list(dict.fromkeys(cleaned))
