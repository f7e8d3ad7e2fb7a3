"""The reviewed graph's records as its readers hand them out: a topic with its claim count, a claim
in brief (its effective score and verdict), and the error a read that cannot be answered raises
(an unknown task, topic or claim id, a bad cursor), saying why in one line."""

from __future__ import annotations

from pydantic import BaseModel, Field

from lyra_core.untrusted import UntrustedText


class ExploreError(ValueError):
    """A request the exploration tools cannot answer (unknown id, bad cursor); says why."""


class Topic(BaseModel):
    topic_id: str
    label: UntrustedText
    claim_count: int
    has_contradiction: bool
    terms: list[UntrustedText]


class ClaimBrief(BaseModel):
    claim_id: str
    text: UntrustedText
    truncated: bool
    origin: str
    evidence_count: int
    supports: int
    refutes: int
    confidence: float
    uncertainty: float = Field(0.0, description="standard deviation of the confidence")
    verdict: str
    rejected: bool = False
