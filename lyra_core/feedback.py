"""Human feedback as pure logic: what each action takes, which domain patterns are allowed, the
relevance multiplier (docs/feedback.md), and the effective graph (model output + human overlay).

Model outputs are immutable per run; feedback is an overlay keyed by stable ids (edge_id,
claim_id, fragment_id), so it applies again to every later materialization of a task.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
)

from lyra_core.domain_rules import domain_pattern_syntax, validate_domain_pattern
from lyra_core.evidence import edge_probabilities
from lyra_core.scoring import (
    REFUTES,
    RELATIONS,
    SUPPORTS,
    ClaimScore,
    Evidence,
    ScoringRule,
    VoteCounts,
    evidence_of,
    score_claim,
    vote_counts,
)
from lyra_core.validation import storable_text

# -- actions and their arguments -------------------------------------------------------------------

RULE_ACTIONS = ("domain_block", "domain_unblock", "domain_clear_override")
CLAIM_ACTIONS = ("claim_reject", "claim_restore")
EDGE_ACTIONS = ("edge_correct",)
RELEVANCE_ACTIONS = ("fragment_useful", "fragment_not_useful")
NOTE_ACTIONS = ("flag_irrelevant", "flag_missing", "add_note")  # recorded as events (docs/feedback.md)
ACTIONS = (*RULE_ACTIONS, *CLAIM_ACTIONS, *EDGE_ACTIONS, *RELEVANCE_ACTIONS, *NOTE_ACTIONS)
Action = Literal[
    "domain_block",
    "domain_unblock",
    "domain_clear_override",
    "claim_reject",
    "claim_restore",
    "edge_correct",
    "fragment_useful",
    "fragment_not_useful",
    "flag_irrelevant",
    "flag_missing",
    "add_note",
]

Id = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.:\-]+$"),
]
# free text is stored and shown again: no NUL, no bytes that are not UTF-8 (storable_text)
Reason = Annotated[
    str, StringConstraints(strip_whitespace=True, max_length=2000), AfterValidator(storable_text)
]
LongText = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=4000),
    AfterValidator(storable_text),
]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class DomainArgs(_Args):
    """clear_override: any well-formed pattern, so a rule stored before a check existed can go."""

    domain_pattern: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=253)]
    reason: Reason = ""

    @field_validator("domain_pattern")
    @classmethod
    def _valid_pattern(cls, value: str) -> str:
        return domain_pattern_syntax(value)


class DomainRuleArgs(DomainArgs):
    """block / unblock: never over a public suffix, and with a reason (the rules table has
    ``reason NOT NULL``)."""

    reason: Annotated[
        str,
        StringConstraints(strip_whitespace=True, min_length=1, max_length=2000),
        AfterValidator(storable_text),
    ]

    @field_validator("domain_pattern")
    @classmethod
    def _valid_pattern(cls, value: str) -> str:
        return validate_domain_pattern(value)


class ClaimArgs(_Args):
    claim_id: Id
    reason: Reason = ""


WRONG_PARTS = ("claim_direction", "passage_direction", "exposure", "outcome", "figures")


class EdgeCorrectArgs(_Args):
    edge_id: Id
    correct_relation: str
    reason: Reason = ""
    wrong_part: str = ""  # which part of the direction judge's reading was wrong (WRONG_PARTS), if known

    @field_validator("wrong_part")
    @classmethod
    def _part(cls, value: str) -> str:
        value = value.strip().lower().replace("-", "_")
        if value and value not in WRONG_PARTS:
            raise ValueError(f"must be one of {', '.join(WRONG_PARTS)} (got {value[:40]!r})")
        return value

    @field_validator("correct_relation")
    @classmethod
    def _relation(cls, value: str) -> str:
        relation = normalize_relation(value)
        if relation is None:
            raise ValueError(f"must be one of supports, refutes, neutral (got {value[:40]!r})")
        return relation


class RelevanceArgs(_Args):
    fragment_id: Id
    claim_id: Id | None = Field(None, description="the claim whose evidence showed the fragment")
    query: (
        Annotated[
            str, StringConstraints(strip_whitespace=True, max_length=1000), AfterValidator(storable_text)
        ]
        | None
    ) = Field(
        None,
        description="the question the fragment answered (default: the claim's text, else the task's question)",
    )
    reason: Reason = ""


class FlagIrrelevantArgs(_Args):
    fragment_id: Id
    reason: Reason = ""


class FlagMissingArgs(_Args):
    page_id: Id
    missing_text: LongText
    location_hint: Annotated[
        str, StringConstraints(strip_whitespace=True, max_length=500), AfterValidator(storable_text)
    ] = ""


class NoteArgs(_Args):
    target_id: Id = Field(description="a task, claim, edge, fragment or page id of the task")
    note: LongText


ARGS_MODELS: dict[str, type[_Args]] = {
    "domain_block": DomainRuleArgs,
    "domain_unblock": DomainRuleArgs,
    "domain_clear_override": DomainArgs,
    "claim_reject": ClaimArgs,
    "claim_restore": ClaimArgs,
    "edge_correct": EdgeCorrectArgs,
    "fragment_useful": RelevanceArgs,
    "fragment_not_useful": RelevanceArgs,
    "flag_irrelevant": FlagIrrelevantArgs,
    "flag_missing": FlagMissingArgs,
    "add_note": NoteArgs,
}


class FeedbackArgsError(ValueError):
    """Feedback arguments that cannot be accepted; the message says which and why."""


def parse_args(action: str, args: Mapping[str, Any] | None) -> _Args:
    """The validated arguments of ``action``, or FeedbackArgsError naming each bad field."""
    model = ARGS_MODELS.get(action)
    if model is None:
        raise FeedbackArgsError(f"unknown feedback action {action!r}; use one of: {', '.join(ACTIONS)}")
    if not isinstance(args, Mapping):
        raise FeedbackArgsError(f"{action}: args must be an object, got {type(args).__name__}")
    try:
        return model.model_validate(dict(args))
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"]) or "args"
            message = err["msg"].removeprefix("Value error, ")
            if err["type"] == "extra_forbidden":
                message = f"unexpected argument (expected: {', '.join(model.model_fields)})"
            problems.append(f"args.{field}: {message}")
        raise FeedbackArgsError(f"{action}: " + "; ".join(problems)) from None


def normalize_relation(value: str) -> str | None:
    """'supports' / 'SUPPORTS' / 'entailment' → 'SUPPORTS'; None when it is no relation."""
    key = (value or "").strip().upper()
    aliases = {
        "SUPPORT": SUPPORTS,
        "ENTAILMENT": SUPPORTS,
        "REFUTE": REFUTES,
        "CONTRADICTION": REFUTES,
        "CONTRADICTS": REFUTES,
    }
    key = aliases.get(key, key)
    return key if key in RELATIONS else None


# -- relevance feedback (docs/feedback.md) ----------------------------------------------------------

MIN_RETURNS = 5


class RelevanceStats(BaseModel):
    """Signals one fragment has gathered in one task."""

    returns: int = 0  # times an agent was shown the fragment (get_claim_evidence)
    positive: int = 0  # fragment_useful
    negative: int = 0  # fragment_not_useful and flag_irrelevant


def relevance_multiplier(stats: RelevanceStats) -> float:
    """The multiplier of a fragment's ranking score (docs/feedback.md#relevance-signals).

    Neutral (1.0) until the fragment was returned at least 5 times; then 0.5 + use rate,
    +0.1 per explicit positive and -0.15 per explicit negative (each counted up to 3), clamped
    to [0.3, 1.7]. Lyra cannot see whether an agent's answer used a fragment, so the use rate
    is taken over the returns an agent judged: positive / (positive + negative), and 0.5 when
    none was judged. A fragment shown often but never judged thus keeps 1.0 instead of being demoted.
    """
    if stats.returns < MIN_RETURNS:
        return 1.0
    judged = stats.positive + stats.negative
    use_rate = stats.positive / judged if judged else 0.5
    multiplier = 0.5 + use_rate
    multiplier += 0.1 * min(stats.positive, 3)
    multiplier -= 0.15 * min(stats.negative, 3)
    return max(0.3, min(1.7, multiplier))


# -- the effective graph ---------------------------------------------------------------------------
# Edges are plain mappings with at least edge_id, claim_id, relation, nli_confidence and page_id
# (rows of nli_edges): a task has a few thousand, and the read tools answer in milliseconds.


def effective_edges(
    edges: Iterable[Mapping[str, Any]], reviews: Mapping[str, str], blocked_pages: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """Edges as people should see them: a reviewed edge whose human label differs from the
    model's takes that label with confidence 1.0 (``human_corrected``); a reviewed edge the human
    confirmed keeps the model's output (``human_reviewed`` only). Edges from pages of blocked
    domains are dropped. ``reviews`` maps edge_id → correct relation; the model's own output
    stays in ``model_relation`` / ``model_confidence``."""
    blocked = set(blocked_pages)
    out = []
    for edge in edges:
        if blocked and edge.get("page_id") in blocked:
            continue
        row = dict(edge)
        review = reviews.get(row["edge_id"])
        row["model_relation"], row["model_confidence"] = row["relation"], row["nli_confidence"]
        row["human_reviewed"] = review is not None
        row["human_corrected"] = review is not None and review != row["relation"]
        if review is not None and row["human_corrected"]:
            row["relation"], row["nli_confidence"] = review, 1.0
            row.update(edge_probabilities(review, 1.0))
        out.append(row)
    return out


def _evidence_by_claim(
    edges: Iterable[Mapping[str, Any]], claim_ids: Iterable[str]
) -> dict[str, list[Evidence]]:
    by_claim: dict[str, list[Evidence]] = {cid: [] for cid in claim_ids}
    for edge in edges:
        if edge["claim_id"] in by_claim:
            by_claim[edge["claim_id"]].append(evidence_of(edge))
    return by_claim


def effective_scores(
    edges: Iterable[Mapping[str, Any]],
    claim_ids: Iterable[str],
    use_bayesian: bool = True,
    rule: ScoringRule | None = None,
) -> dict[str, ClaimScore]:
    """Claim scores recomputed from (effective) edges with lyra_core.scoring, so a correction
    changes the score at once (docs/scoring.md#human-feedback). Claims without edges keep the prior."""
    return {
        cid: score_claim(ev, use_bayesian, rule) for cid, ev in _evidence_by_claim(edges, claim_ids).items()
    }


def effective_votes(
    edges: Iterable[Mapping[str, Any]],
    claim_ids: Iterable[str],
    use_bayesian: bool = True,
    rule: ScoringRule | None = None,
) -> dict[str, VoteCounts]:
    """The votes that entered each claim's :func:`effective_scores` score for the same arguments."""
    return {
        cid: vote_counts(ev, use_bayesian, rule) for cid, ev in _evidence_by_claim(edges, claim_ids).items()
    }


def touched_claims(
    edges: Iterable[Mapping[str, Any]], reviews: Mapping[str, str], blocked_pages: Iterable[str] = ()
) -> set[str]:
    """Claims whose score the overlay changes: those with an edge relabelled by a human or coming
    from a blocked domain. Every other claim's stored model score is already its effective score."""
    blocked = set(blocked_pages)
    return {
        e["claim_id"]
        for e in edges
        if (reviews.get(e["edge_id"]) not in (None, e["relation"]))
        or (blocked and e.get("page_id") in blocked)
    }
