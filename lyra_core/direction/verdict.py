"""An edge's relation composed from the parts the judge read, with its reason in one line.

Same direction → SUPPORTS; the opposite direction, or no significant difference against a claim
that asserts one → REFUTES; a passage not about the claim's exposure and outcome → NEUTRAL. The
passage's direction is a distribution (the learned reader's probabilities), replaced by the
figures where a ratio or a difference with its interval decides; the edge's probabilities follow
from it, so the one-vote-per-paper Beta update reads them as before (docs/direction.md).
"""

from __future__ import annotations

from typing import Literal, TypedDict

from pydantic import BaseModel

from lyra_core.direction.claim_frame import ClaimFrame
from lyra_core.direction.other_end import as_named_in, exposure_as_named_in, status_for_intervention
from lyra_core.direction.passage import PassageReading, read_passage, states_no_finding, states_open_question
from lyra_core.direction.relevance import Relevance, outcome_sentences, relevance
from lyra_core.direction.wording import in_sentence, outcome_noun

# One rule for nulls (docs/direction.md#nulls): a finding of no difference the passage states counts against a
# claim of an effect as an opposite finding does, at its full probability, unless it is imprecise: a ratio
# whose interval still reaches an appreciable effect the claim asserts (GRADE's default, a relative change of
# 25 %: below APPRECIABLE_DECREASE or above APPRECIABLE_INCREASE), or a null beside a significant result in
# the same passage (a subgroup's, a secondary outcome's), counts IMPRECISE_NULL_WEIGHT
APPRECIABLE_DECREASE, APPRECIABLE_INCREASE = 0.75, 1.25
IMPRECISE_NULL_WEIGHT = 0.4  # at the figures' certainty (0.9), such a null alone stays under the vote's 0.5
OTHER_WAY_WEIGHT = 0.8  # how far a change the other way bears out a denial ("does not raise", a decrease)
FIGURES_CERTAINTY = 0.9  # the reading of a ratio or a difference whose interval decides
ARMS_TIE = 0.6  # chosen on Evidence Inference validation (0.3 to 0.6 score alike; bench/direction_reading.py)
STATED_NULL_RELATED = True  # a null the words or figures state is a finding (bench.direction_reading)
UNSTATED_NULL = 0.5  # the share of the reader's "no difference" kept where nothing in the passage states one
_SAID = {"increased": "higher", "decreased": "lower", "no_difference": "no difference in"}
_OPPOSITE = {"increased": "decreased", "decreased": "increased"}


Relation = Literal["SUPPORTS", "REFUTES", "NEUTRAL"]


class DirectionJudgement(BaseModel):
    """The relation of one passage to one effect claim, and why."""

    relation: Relation
    p_supports: float
    p_refutes: float
    p_neutral: float
    claim_direction: (
        str  # increase, decrease, association (either way), no_effect, not_increase, not_decrease
    )
    passage_direction: str | None  # increased, decreased, no_difference; None when not read
    figures: str
    exposure_matched: bool
    outcome_matched: bool
    reason: str
    direction_stated: bool = True  # the passage's words or figures state a direction (the rules read one)
    said_of_another: str = ""  # the passage's direction word, said of another thing than the outcome


class _Grounds(TypedDict):
    """What a judgement rests on besides the passage's direction: the claim's, the figures, the matches."""

    claim_direction: str
    figures: str
    exposure_matched: bool
    outcome_matched: bool


def claim_direction(frame: ClaimFrame) -> str:
    if frame.either_way:
        return "association"
    return (
        f"not_{frame.direction}" if frame.negated and frame.direction != "no_effect" else str(frame.direction)
    )


def passage_distribution(model_probs: dict[str, float], reading: PassageReading) -> dict[str, float]:
    """increased / decreased / no_difference / unrelated probabilities: the model's, unless the
    figures decide (a ratio or a difference with its interval, two arms not significantly apart) or
    the words say the comparator's arm is the higher or lower one ("lower in the placebo group than
    in the X group"); two arms significantly apart rule out no difference."""
    # Which readings decide was measured on Evidence Inference validation (bench/direction_reading.py):
    # arms read as significant do not decide (which arm is which is too often misread).
    decisive = [
        f
        for f in reading.figures
        if (f.kind in ("ratio", "difference") and f.low is not None) or (f.kind == "arms" and f.way == "none")
    ]
    decided = reading.direction and (
        (reading.source == "figures" and decisive) or (reading.source == "words" and reading.comparator_first)
    )
    if decided:
        rest = (1 - FIGURES_CERTAINTY) / 2
        out = {k: rest for k in ("increased", "decreased", "no_difference")}
        out[str(reading.direction)] = FIGURES_CERTAINTY
        return {**out, "unrelated": 0.0}
    total = (
        sum(model_probs.get(k, 0.0) for k in ("increased", "decreased", "no_difference", "unrelated")) or 1.0
    )
    probs = {
        k: model_probs.get(k, 0.0) / total for k in ("increased", "decreased", "no_difference", "unrelated")
    }
    if any(f.kind == "arms" and f.way in ("up", "down") for f in reading.figures):
        probs["no_difference"] = 0.0
    elif reading.direction == "no_difference" and reading.null_stated and STATED_NULL_RELATED:
        # the sentences that name the outcome say in words or figures that the arms did not differ
        # ("a non-significant absolute reduction", "10.0% vs 10.5%, p = 0.6"): a finding about it, whatever
        # the reader makes of a result named as "the primary outcome"
        probs["no_difference"] += probs["unrelated"]
        probs["unrelated"] = 0.0
    elif not reading.null_stated:
        # a "no difference" that no word or figure states is most often a sentence with no finding
        # (background, a call for more research): half of it counts as unrelated
        probs["unrelated"] += probs["no_difference"] * (1 - UNSTATED_NULL)
        probs["no_difference"] *= UNSTATED_NULL
    total = sum(probs.values()) or 1.0
    probs = {k: v / total for k, v in probs.items()}
    ways = {f.way for f in reading.figures if f.kind == "arms" and f.way in ("up", "down")}
    shown = None
    if reading.source == "words" and reading.direction in ("increased", "decreased"):
        # a change the words state ("reduced", "preventing", "higher") says which way; the reader still
        # weighs it against no difference (measured on Evidence Inference validation)
        shown = reading.direction
    elif len(ways) == 1 and abs(probs["increased"] - probs["decreased"]) < ARMS_TIE:
        # the reader cannot compare numbers ("12 % with X and 20 % with placebo" reads as a coin toss):
        # when it barely tells up from down, the arms read as significantly apart say which
        shown = "increased" if ways == {"up"} else "decreased"
    if shown is not None:
        other = "decreased" if shown == "increased" else "increased"
        both = probs[shown] + probs[other]
        probs[shown], probs[other] = both * FIGURES_CERTAINTY, both * (1 - FIGURES_CERTAINTY)
    return probs


def null_weight(reading: PassageReading, said: str) -> float:
    """How much a no-difference reading of ``reading`` counts against a claim whose direction is
    ``said`` (:func:`claim_direction`), next to an opposite finding: fully, unless it is imprecise
    (see :data:`IMPRECISE_NULL_WEIGHT`): "HR 0.63, 0.35–1.13" cannot refute "reduces" (a reduction by a
    third is inside it), "HR 1.04, 0.91–1.18" can; "OR 0.66 (0.62–0.71) … but OR 0.97 (0.78–1.20) among
    those with less common genotypes" is a finding and a subgroup's null, not a null."""
    if any(f.way in ("up", "down") for f in reading.figures):
        return IMPRECISE_NULL_WEIGHT
    nulls = [f for f in reading.figures if f.kind == "ratio" and f.way == "none" and f.low and f.high]
    reaches_down = any(f.low is not None and f.low < APPRECIABLE_DECREASE for f in nulls)
    reaches_up = any(f.high is not None and f.high > APPRECIABLE_INCREASE for f in nulls)
    reaches = {"decrease": reaches_down, "increase": reaches_up, "association": reaches_down or reaches_up}
    return IMPRECISE_NULL_WEIGHT if reaches.get(said, False) else 1.0


def judge(
    frame: ClaimFrame,
    probs: dict[str, float],
    reading: PassageReading,
    about: Relevance,
    named_as: str | None = None,
    exposure_named_as: str | None = None,
) -> DirectionJudgement:
    """The relation of a passage to a directional claim, from the passage's direction distribution
    ``probs`` for the claim's exposure and outcome (see :func:`passage_distribution`), the rule
    ``reading`` and the ``about`` check; ``named_as`` is the outcome as the passage names it from its
    other end (mortality for survival), ``exposure_named_as`` the exposure so (weight loss for
    obesity), for the reason."""
    said = claim_direction(frame)
    figures = reading.figures_text()
    base = _Grounds(
        claim_direction=said,
        figures=figures,
        exposure_matched=about.exposure_matched,
        outcome_matched=about.outcome_matched,
    )
    if not about.about_both:
        exposure, outcome = in_sentence(frame.exposure), outcome_noun(frame.outcome)
        missing = " and ".join(
            part
            for part, ok in ((exposure, about.exposure_matched), (outcome, about.outcome_matched))
            if not ok
        )
        if about.outcome_as_population and about.exposure_matched:
            # "the treatment of prostate cancer": who was studied, not whether they got it
            reason = f"names {outcome} only as who was studied, not as what happened to them → neutral"
        elif missing:
            reason = f"not about {missing} → neutral"
        else:
            reason = (
                f"names {exposure} and {outcome} side by side, not the effect of one on the other → neutral"
            )
        return DirectionJudgement(
            relation="NEUTRAL",
            p_supports=0.0,
            p_refutes=0.0,
            p_neutral=1.0,
            passage_direction=None,
            reason=reason,
            **base,
        )
    related = 1.0 - probs["unrelated"]
    up, down, null = probs["increased"], probs["decreased"], probs["no_difference"]
    weighed_null = null_weight(reading, said) * null
    if said == "association":
        support, refute = up + down, weighed_null
    elif said == "increase":
        support, refute = up, down + weighed_null
    elif said == "decrease":
        support, refute = down, up + weighed_null
    elif said == "not_increase":
        support, refute = null + OTHER_WAY_WEIGHT * down, up
    elif said == "not_decrease":
        support, refute = null + OTHER_WAY_WEIGHT * up, down
    else:  # no_effect
        support, refute = null, up + down
    p_supports, p_refutes = support * related, refute * related
    p_neutral = max(0.0, 1.0 - p_supports - p_refutes)
    ranked: tuple[tuple[Relation, float], ...] = (
        ("SUPPORTS", p_supports),
        ("REFUTES", p_refutes),
        ("NEUTRAL", p_neutral),
    )
    relation = max(ranked, key=lambda kv: kv[1])[0]
    direction = max(("increased", "decreased", "no_difference"), key=lambda k: probs[k])
    exposure, outcome = in_sentence(frame.exposure), outcome_noun(frame.outcome)
    reported = f"reports {_SAID[direction]} {outcome} with {exposure}"
    if named_as or exposure_named_as:
        # as the passage says it, then (for a change) what that says of the claim's exposure and outcome
        flips = direction in _OPPOSITE and bool(named_as) != bool(exposure_named_as)
        said = (
            f"{_SAID[_OPPOSITE[direction] if flips else direction]} {outcome_noun(named_as or frame.outcome)}"
        )
        reported = f"reports {said} with {in_sentence(exposure_named_as or frame.exposure)}"
        if direction in _OPPOSITE:
            reported += f" ({_SAID[direction]} {outcome} with {exposure})"
    shown = reading.read_text()  # the figures, else the words the direction was read from
    reason = f"{reported}{f' ({shown})' if shown else ''}; the claim says {frame.says()} → {relation.lower()}"
    return DirectionJudgement(
        relation=relation,
        p_supports=round(p_supports, 4),
        p_refutes=round(p_refutes, 4),
        p_neutral=round(p_neutral, 4),
        passage_direction=direction,
        reason=reason,
        direction_stated=reading.source != "none",
        said_of_another=reading.said_of_another,
        **base,
    )


# A relation the judge holds less likely than not is no vote (as scoring's ``min_vote`` counts it): shown
# as neutral, not as the claim's strongest passage for or against it
VOTE_MIN = 0.5


def counted_relation(relation: str, p_supports: float, p_refutes: float) -> str:
    """``relation`` where its probability is at least ``VOTE_MIN``, else NEUTRAL: a cross-encoder
    that reads "supports" at 0.45 holds it more likely that the passage does not support the claim."""
    p = {"SUPPORTS": p_supports, "REFUTES": p_refutes}.get(relation)
    return "NEUTRAL" if p is not None and p < VOTE_MIN else relation


UNNAMED_COMPARATOR = "control"  # Lyra's claims rarely name what the exposure is compared with


def reader_question(exposure: str, outcome: str, comparator: str = "") -> str:
    """How the direction reader is asked about a passage, in training and in use alike: the exposure,
    what it is compared with, the outcome."""
    exposure, outcome = " ".join(exposure.split()), " ".join(outcome.split())
    comparator = " ".join(comparator.split()) or UNNAMED_COMPARATOR
    return f"effect of {exposure} versus {comparator} on {outcome}"


def no_finding_reason(passage: str) -> str | None:
    """Why ``passage`` is no evidence for any claim, whatever it names: it states an aim or a method,
    or says what is not yet known; None for a passage that may state a finding."""
    return (
        "states an aim or a method"
        if states_no_finding(passage)
        else "says what is not yet known"
        if states_open_question(passage)
        else None
    )


def judge_passage(
    frame: ClaimFrame, passage: str, paper_text: str, probs: dict[str, float]
) -> DirectionJudgement:
    """The relation of ``passage`` (from a paper whose title and abstract are ``paper_text``) to the
    effect claim ``frame``, given the direction reader's probabilities ``probs`` for it."""
    no_finding = no_finding_reason(passage)
    if no_finding:
        return DirectionJudgement(
            relation="NEUTRAL",
            p_supports=0.0,
            p_refutes=0.0,
            p_neutral=1.0,
            claim_direction=claim_direction(frame),
            passage_direction=None,
            figures="",
            exposure_matched=False,
            outcome_matched=False,
            reason=f"{no_finding}, not a finding → neutral",
        )
    # the direction is read where the outcome is named, as the passage names it (``probs`` were read so
    # too); whether the passage is about both, in all of it
    where = outcome_sentences(frame.outcome, passage, paper_text=paper_text)
    instead = status_for_intervention(frame.exposure, where)
    if instead is not None:
        return DirectionJudgement(
            relation="NEUTRAL",
            p_supports=0.0,
            p_refutes=0.0,
            p_neutral=1.0,
            claim_direction=claim_direction(frame),
            passage_direction=None,
            figures="",
            exposure_matched=False,
            outcome_matched=True,
            reason=f"speaks of {in_sentence(instead)}, not of {in_sentence(frame.exposure)}: "
            "evidence on one is indirect evidence on the other → neutral",
        )
    named, inverted = as_named_in(frame.outcome, where)
    exposure, exposure_inverted = exposure_as_named_in(frame.exposure, where)
    reading = read_passage(where, exposure, named, frame.comparator)
    about = relevance(frame.exposure, frame.outcome, passage, paper_text, treated=frame.treats)
    distribution = passage_distribution(probs, reading)
    if (
        inverted != exposure_inverted
    ):  # lower mortality is higher survival; less diabetes with weight loss, more with obesity
        distribution = {_OPPOSITE.get(k, k): v for k, v in distribution.items()}
    return judge(
        frame,
        distribution,
        reading,
        about,
        named if inverted else None,
        exposure if exposure_inverted else None,
    )


def reader_question_for(frame: ClaimFrame, passage: str, paper_text: str = "") -> str:
    """The reader's question about ``passage`` for the effect claim ``frame``: asked of the sentences
    that name the outcome, with the exposure and the outcome as they name them (see :func:`judge_passage`)."""
    where = outcome_sentences(frame.outcome, passage, paper_text=paper_text)
    return reader_question(
        exposure_as_named_in(frame.exposure, where)[0], as_named_in(frame.outcome, where)[0]
    )


# A reviewer's relation fixes the passage's direction only where one direction gives it.
_DIRECTION_OF_RELATION = {
    ("increase", "SUPPORTS"): "increased",
    ("decrease", "SUPPORTS"): "decreased",
    ("no_effect", "SUPPORTS"): "no_difference",
    ("not_increase", "REFUTES"): "increased",
    ("not_decrease", "REFUTES"): "decreased",
    ("no_effect", "NEUTRAL"): None,
}


def direction_of_correction(claim_direction: str | None, relation: str) -> str | None:
    """The direction a passage reports, given the claim's direction and the relation a reviewer says
    holds; None where several directions give that relation (a claim of an increase is refuted by a
    decrease and by no difference alike)."""
    return _DIRECTION_OF_RELATION.get((claim_direction or "", relation.upper()))
