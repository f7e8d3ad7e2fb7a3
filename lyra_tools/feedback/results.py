"""What a feedback call answers (``lyra_tools.feedback.apply.apply_feedback``), and the error of one
that cannot be applied."""

from __future__ import annotations

import uuid

from pydantic import BaseModel, Field

from lyra_core.untrusted import MarksUntrusted, UntrustedText


class FeedbackError(ValueError):
    """Feedback that cannot be applied (unknown id, bad arguments); the store is unchanged."""


class ScoreAfter(BaseModel):
    claim_id: str
    confidence: float | None
    controversy: float | None
    verdict: str | None
    supporting_count: int
    refuting_count: int
    recomputed: bool


class EdgeEffect(BaseModel):
    edge_id: str
    claim_id: str
    model_relation: str
    model_confidence: float
    effective_relation: str
    human_corrected: bool
    correction_id: str | None = Field(
        None, description="the nli_corrections row written, when the label changed"
    )


class RuleEffect(BaseModel):
    rule_id: str | None
    domain_pattern: str
    decision: str | None
    is_active: bool
    task_domains_blocked: list[UntrustedText] = Field(default_factory=list)


class RelevanceEffect(BaseModel):
    fragment_id: str
    returns: int
    positive: int
    negative: int
    multiplier: float = Field(
        description="the ranking multiplier (docs/feedback.md) the next run of the task applies"
    )


class FeedbackResult(MarksUntrusted):
    event_id: str
    task_id: str
    action: str
    target_id: str
    changed: bool
    outcome: str
    edge: EdgeEffect | None = None
    claim: ScoreAfter | None = None
    rule: RuleEffect | None = None
    relevance: RelevanceEffect | None = None


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:16]}"
