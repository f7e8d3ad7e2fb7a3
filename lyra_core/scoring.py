"""Claim scores from evidence edges: the Bayesian model that docs/scoring.md specifies.

Beta(1, 1) prior; every vote for a claim adds its probability to alpha (SUPPORTS) or beta
(REFUTES); NEUTRAL adds nothing. Domain trust never enters: confidence comes from evidence alone.

Two aggregations decide what a vote is:
- ``paper_votes`` (default): one vote per source page (an abstract, a web page): its strongest
  SUPPORTS or REFUTES edge, weighted by ``vote_weight``; a vote whose probability is under
  ``min_vote`` is no vote. Overlapping windows of one abstract are not independent evidence, so
  one paper never counts two or three times.
- ``edges``: the per-edge rule (docs/scoring.md): every edge is a vote of weight 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field

from lyra_core.certainty import Certainty, Vote, grade
from lyra_core.study_design import GRADED_AS
from lyra_core.topicality import on_topic

SUPPORTS, REFUTES, NEUTRAL = "SUPPORTS", "REFUTES", "NEUTRAL"
RELATIONS = (SUPPORTS, REFUTES, NEUTRAL)
VERDICTS = ("contested", "well_supported", "supported", "likely_false", "unverified")
UNDECIDED = ("unverified", "contested")  # verdicts that say the evidence does not decide
# What a side's votes must add to its Beta parameter, beyond the prior's 1, for that side to be
# strong: as much weight as the prior itself. Under the default rule one counted vote always is
# (vote_weight 4 × a probability of at least min_vote 0.5 = 2); under the per-edge rule it takes
# the confidences of a side's edges summing to 1.
STRONG_SIDE = 1.0
Aggregation = Literal["paper_votes", "edges"]
T = TypeVar("T")
# What one paper's vote adds to alpha or beta (times its probability), and the probability under
# which it is no vote: chosen in every fold of the 5-fold cross-validation on SciFact train claims
# (bench/verification.py, fitted on the other folds each time). With weight 4, one clearly refuting
# abstract can make a claim likely false, as one clearly supporting abstract makes it supported.
DEFAULT_VOTE_WEIGHT = 4.0
DEFAULT_MIN_VOTE = 0.5


class ScoringRule(BaseModel):
    """How edges become a claim's Beta update (``evidence.aggregation`` / ``evidence.vote_weight``)."""

    aggregation: Aggregation = "paper_votes"
    vote_weight: float = Field(DEFAULT_VOTE_WEIGHT, gt=0, le=20)
    min_vote: float = Field(
        DEFAULT_MIN_VOTE,
        ge=0,
        lt=1,
        description="a paper's vote below this probability counts as no vote (paper_votes)",
    )


class Evidence(BaseModel):
    """What the score needs of one edge: its relation, NLI confidence and source page, and for the
    certainty of the verdict (lyra_core.certainty) its paper's design and size and how it was read."""

    relation: str
    nli_confidence: float
    page_id: str | None = None
    study_design: str | None = None
    sample_size: int | None = None
    judged_by: str | None = None
    human: bool = False  # a person reviewed the edge (its relation is theirs)
    on_topic: bool = True  # about the claim's exposure and outcome, its finding stated (lyra_core.topicality)


def _present(value: Any) -> bool:
    """Whether a cell holds a value: not None, NaN or pandas' NA (whose comparison cannot be a bool)."""
    if value is None:
        return False
    try:
        return bool(value == value)
    except TypeError:
        return False


def evidence_of(edge: Mapping[str, Any]) -> Evidence:
    """An edge row (a dict of `nli_edges` columns, effective or not) as the score reads it."""

    def text(key: str) -> str | None:
        value = edge.get(key)
        return value if isinstance(value, str) else None

    # cells: a value, None, NaN or pandas' NA (``_present``)
    size: Any = edge.get("sample_size")
    human: Any = edge.get("human_reviewed")
    return Evidence(
        relation=edge["relation"],
        nli_confidence=float(edge["nli_confidence"]),
        page_id=text("page_id"),
        study_design=text("study_design"),
        sample_size=int(size) if _present(size) else None,
        judged_by=text("judged_by"),
        human=bool(human) if _present(human) else False,
        on_topic=on_topic(edge),
    )


class ClaimScore(BaseModel):
    alpha: float
    beta: float
    confidence: float
    uncertainty: float
    controversy: float
    verdict: str
    supporting_count: int
    refuting_count: int
    neutral_count: int
    independent_sources: int
    evidence_count: int
    # how far the votes on the side the verdict takes can be trusted (lyra_core.certainty):
    # high | moderate | low | very_low, and what lowered it
    certainty: str = "very_low"
    certainty_reasons: str = ""


def determine_verdict(confidence: float, controversy: float, well_supported_allowed: bool = True) -> str:
    """The verdict: the first of docs/scoring.md's rules that holds. ``well_supported`` needs
    evidence whose certainty allows it (:attr:`lyra_core.certainty.Certainty.allows_well_supported`);
    without, the claim is ``supported``."""
    if controversy > 0.3:
        return "contested"
    if confidence >= 0.75:
        return "well_supported" if well_supported_allowed else "supported"
    if confidence >= 0.6:
        return "supported"
    if confidence <= 0.25:
        return "likely_false"
    return "unverified"


def undecided_because(
    verdict: str | None, alpha: float, beta: float
) -> Literal["conflicting", "insufficient"] | None:
    """Why an undecided verdict (``unverified``, ``contested``) does not decide: ``conflicting``
    when the votes on both sides are strong (each adds at least :data:`STRONG_SIDE` to its Beta
    parameter), else ``insufficient`` (few or weak votes, or none). None for a verdict that decides.
    The stored verdict stays as it is; this is the reading a person is told beside it."""
    if verdict not in UNDECIDED:
        return None
    return "conflicting" if votes_on_both_sides(alpha, beta) else "insufficient"


def votes_on_both_sides(alpha: float, beta: float) -> bool:
    """Whether a claim's evidence conflicts: the votes for it and the votes against it are both
    strong (each side adds at least :data:`STRONG_SIDE` to its Beta parameter). A lone REFUTES edge
    under ``min_vote``, or one weak vote against many for, is no conflict."""
    return min(alpha, beta) - 1.0 >= STRONG_SIDE


def _counts(edges: list[Evidence]) -> dict[str, int]:
    return {
        "supporting_count": sum(e.relation == SUPPORTS for e in edges),
        "refuting_count": sum(e.relation == REFUTES for e in edges),
        "neutral_count": sum(e.relation == NEUTRAL for e in edges),
        # distinct pages among the supporting edges: two fragments of one abstract are one source
        "independent_sources": len({e.page_id for e in edges if e.relation == SUPPORTS and e.page_id}),
        "evidence_count": len(edges),
    }


def strongest_votes(
    edges: Iterable[T],
    source: Callable[[T], Hashable | None],
    relation: Callable[[T], str],
    confidence: Callable[[T], float],
) -> list[T]:
    """One vote per source: its strongest SUPPORTS or REFUTES edge (ties: the first). An edge
    without a source is a source of its own; sources whose edges are all NEUTRAL cast no vote."""
    best: dict[Hashable, T] = {}
    for i, edge in enumerate(edges):
        if relation(edge) not in (SUPPORTS, REFUTES):
            continue
        key = source(edge)
        key = key if key is not None else ("edge", i)
        if key not in best or confidence(edge) > confidence(best[key]):
            best[key] = edge
    return list(best.values())


def paper_votes(edges: Iterable[Evidence]) -> list[Evidence]:
    """One vote per source page (an abstract, a web page): its strongest SUPPORTS or REFUTES edge."""
    return strongest_votes(
        edges, lambda e: e.page_id or None, lambda e: e.relation, lambda e: e.nli_confidence
    )


class VoteCounts(BaseModel):
    """What entered a claim's score: its votes for and against, and the sources whose strongest
    SUPPORTS or REFUTES edge is under ``min_vote`` (judged, but no vote)."""

    supporting: int = 0
    refuting: int = 0
    below_threshold: int = 0


def _counted_votes(edges: list[Evidence], rule: ScoringRule) -> tuple[list[Evidence], float, int]:
    """The votes ``rule`` counts, the weight of each, and how many sources it leaves out as under
    ``min_vote``; an off-topic edge (lyra_core.topicality) is no vote."""
    edges = [e for e in edges if e.on_topic]
    if rule.aggregation == "paper_votes":
        strongest = paper_votes(edges)
        votes = [v for v in strongest if v.nli_confidence >= rule.min_vote]
        return votes, rule.vote_weight, len(strongest) - len(votes)
    return edges, 1.0, 0


def vote_counts(
    edges: Iterable[Evidence], use_bayesian_confidence: bool = True, rule: ScoringRule | None = None
) -> VoteCounts:
    """The votes that entered :func:`score_claim`'s score for the same arguments (the legacy
    calculation counts every edge)."""
    edges, below = list(edges), 0
    votes = edges
    if use_bayesian_confidence:
        votes, _, below = _counted_votes(edges, rule or ScoringRule(aggregation="edges"))
    return VoteCounts(
        supporting=sum(v.relation == SUPPORTS for v in votes),
        refuting=sum(v.relation == REFUTES for v in votes),
        below_threshold=below,
    )


def certainty_of(votes: Iterable[Evidence], weight: float, side: str) -> Certainty:
    """The certainty of the votes on ``side``, one per paper (an edge without a page is its own)."""
    return grade(
        [
            Vote(
                relation=v.relation,
                weight=weight * v.nli_confidence,
                # a registry study is graded as the cohort it is, human cells as laboratory work
                study_design=GRADED_AS.get(v.study_design or "", v.study_design),
                sample_size=v.sample_size,
                judged_by=v.judged_by,
                human=v.human,
            )
            for v in paper_votes(votes)
        ],
        side,
    )


def bayesian_score(edges: Iterable[Evidence], rule: ScoringRule | None = None) -> ClaimScore:
    """The Beta(1, 1) update of docs/scoring.md; without ``rule``, every edge votes with weight 1."""
    edges = list(edges)
    votes, weight, _ = _counted_votes(edges, rule or ScoringRule(aggregation="edges"))
    alpha, beta = 1.0, 1.0
    for edge in votes:
        if edge.relation == SUPPORTS:
            alpha += weight * edge.nli_confidence
        elif edge.relation == REFUTES:
            beta += weight * edge.nli_confidence
    confidence = alpha / (alpha + beta)
    uncertainty = math.sqrt(alpha * beta / ((alpha + beta) ** 2 * (alpha + beta + 1)))
    total = alpha + beta - 2
    controversy = min(alpha - 1, beta - 1) / total if total > 0 else 0.0
    certainty = certainty_of(votes, weight, SUPPORTS if confidence >= 0.5 else REFUTES)
    return ClaimScore(
        alpha=round(alpha, 2),
        beta=round(beta, 2),
        confidence=round(confidence, 3),
        uncertainty=round(uncertainty, 3),
        controversy=round(controversy, 3),
        verdict=determine_verdict(confidence, controversy, certainty.allows_well_supported),
        **_counts(edges),
        certainty=certainty.level,
        certainty_reasons="; ".join(certainty.reasons),
    )


def legacy_score(edges: Iterable[Evidence]) -> ClaimScore:
    """The pre-Bayesian calculation, behind ``use_bayesian_confidence: false``: the confidence-
    weighted share of supporting evidence (0.5 with none), no uncertainty, and controversy as the
    minority side's share when both sides exist."""
    edges = list(edges)
    support = sum(e.nli_confidence for e in edges if e.relation == SUPPORTS)
    refute = sum(e.nli_confidence for e in edges if e.relation == REFUTES)
    total = support + refute
    confidence = support / total if total > 0 else 0.5
    controversy = min(support, refute) / total if total > 0 else 0.0
    certainty = certainty_of(edges, 1.0, SUPPORTS if confidence >= 0.5 else REFUTES)
    return ClaimScore(
        alpha=round(1.0 + support, 2),
        beta=round(1.0 + refute, 2),
        confidence=round(confidence, 3),
        uncertainty=0.0,
        controversy=round(controversy, 3),
        verdict=determine_verdict(confidence, controversy, certainty.allows_well_supported),
        **_counts(edges),
        certainty=certainty.level,
        certainty_reasons="; ".join(certainty.reasons),
    )


def score_claim(
    edges: Iterable[Evidence], use_bayesian_confidence: bool = True, rule: ScoringRule | None = None
) -> ClaimScore:
    """The claim's score: the Bayesian update under ``rule`` (default: the per-edge rule),
    or the legacy calculation."""
    return bayesian_score(edges, rule) if use_bayesian_confidence else legacy_score(edges)
