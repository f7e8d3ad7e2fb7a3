"""Lyra's judge of (claim, passage) pairs: direction read explicitly for claims about an effect, the
cross-encoder for the rest.

For an effect claim the claim's frame, the passage's figures and words, the learned direction
reader's probabilities and the exposure/outcome check compose the relation
(``lyra_core.direction.verdict.judge_passage``); every judgement carries its parts and a one-line
reason. docs/direction.md describes the whole.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.relevance import outcome_sentences
from lyra_core.direction.verdict import (
    DirectionJudgement,
    counted_relation,
    judge_passage,
    no_finding_reason,
    reader_question_for,
)
from lyra_core.topicality import READER_ALONE
from lyra_resources.models.inference import NliPrediction, PairClassifier, cached_model, nli_model, softmax
from lyra_resources.models.model_files import DEFAULT_DIRECTION_DIR, ModelError, base_version

READER_LABELS = ("increased", "decreased", "no_difference", "unrelated")
DIRECTION, CROSS_ENCODER = "direction", "cross-encoder"


class ReaderPrediction(BaseModel):
    """The reader's answer for one passage: its most likely label and every label's probability."""

    label: str
    confidence: float
    probs: dict[str, float]


class EdgeJudgement(BaseModel):
    """One pair's relation, probabilities and reason, whichever judge decided it."""

    relation: str
    p_supports: float
    p_refutes: float
    p_neutral: float
    judged_by: str  # direction | cross-encoder
    claim_direction: str | None = None
    passage_direction: str | None = None
    effect_figures: str = ""
    exposure_matched: bool | None = None
    outcome_matched: bool | None = None
    reason: str = ""
    reader_probability: float | None = (
        None  # where no word or figure states a direction: the reader's, for its reading
    )

    @property
    def confidence(self) -> float:
        return max(self.p_supports, self.p_refutes, self.p_neutral)

    @property
    def nli_label(self) -> str:
        return {"SUPPORTS": "entailment", "REFUTES": "contradiction"}.get(self.relation, "neutral")

    @classmethod
    def from_direction(cls, verdict: DirectionJudgement) -> EdgeJudgement:
        return cls(
            relation=verdict.relation,
            p_supports=verdict.p_supports,
            p_refutes=verdict.p_refutes,
            p_neutral=verdict.p_neutral,
            judged_by=DIRECTION,
            claim_direction=verdict.claim_direction,
            passage_direction=verdict.passage_direction,
            effect_figures=verdict.figures,
            exposure_matched=verdict.exposure_matched,
            outcome_matched=verdict.outcome_matched,
            reason=verdict.reason,
        )

    @classmethod
    def from_cross_encoder(
        cls, relation: str, probs: dict[str, float], why: str = "the claim states no direction of an effect"
    ) -> EdgeJudgement:
        p = {"SUPPORTS": probs["entailment"], "REFUTES": probs["contradiction"], "NEUTRAL": probs["neutral"]}
        return cls(
            relation=relation,
            p_supports=p["SUPPORTS"],
            p_refutes=p["REFUTES"],
            p_neutral=p["NEUTRAL"],
            judged_by=CROSS_ENCODER,
            reason=f"{why}; the cross-encoder reads {relation.lower()} ({max(p.values()):.2f})",
        )


class DirectionReader(PairClassifier):
    """The learned reader: passage × "effect of X versus control on Y" → increased / decreased /
    no difference / unrelated probabilities."""

    def __init__(self, path: str | Path = DEFAULT_DIRECTION_DIR, max_length: int = 192, batch_size: int = 32):
        if not Path(path).exists():
            raise ModelError(
                f"the direction reader is missing at {path}: it ships with Lyra's source tree "
                "(lyra_resources/model_weights/); rebuild it with `lyra models train-direction`"
            )
        super().__init__(path, max_length=max_length, batch_size=batch_size)

    @cached_property
    def version(self) -> str:
        return base_version(self.path)

    def predict(
        self, pairs: list[tuple[str, str]], on_batch: Callable[[int], None] | None = None
    ) -> list[ReaderPrediction]:
        rows = softmax(self.logits(pairs, on_batch)) if pairs else []
        out = []
        for row in rows:
            probs = dict(zip(READER_LABELS, map(float, row), strict=True))
            label = max(probs, key=probs.__getitem__)
            out.append(ReaderPrediction(label=label, confidence=probs[label], probs=probs))
        return out


def direction_reader(path: str | Path = DEFAULT_DIRECTION_DIR) -> DirectionReader:
    return cached_model("direction", str(path), lambda: DirectionReader(path))


UNDIRECTED = "the claim states no direction of an effect"
UNSTATED = "the passage states no direction in words or figures"
NOT_READ = "no direction read in words, figures or by the reader: not counted"
# Where no word or figure states a direction, who decides (docs/direction.md): the direction reader when it
# reads one with at least READER_ALONE_MIN (chosen on Evidence Inference validation prompts,
# bench.judge_abstracts), else nobody; "cross-encoder" is the older rule (it decides by overlap).
UnstatedRule = Literal["reader", "cross-encoder"]
READER_ALONE_MIN = 0.0
_READ_AS = {"increased": "an increase", "decreased": "a decrease", "no_difference": "no difference"}

ReaderPredict = Callable[[list[tuple[str, str]]], list[dict]]
NliPredict = Callable[[list[tuple[str, str]]], list[dict]]


def _no_vote(verdict: DirectionJudgement, reader_probability: float, reason: str) -> EdgeJudgement:
    """A neutral edge of the direction judge that states no passage direction: the claim's reading and
    the passage's figures kept, with the reader's probability and why it does not vote."""
    return EdgeJudgement(
        relation="NEUTRAL",
        p_supports=0.0,
        p_refutes=0.0,
        p_neutral=1.0,
        judged_by=DIRECTION,
        claim_direction=verdict.claim_direction,
        passage_direction=None,
        effect_figures=verdict.figures,
        exposure_matched=verdict.exposure_matched,
        outcome_matched=verdict.outcome_matched,
        reader_probability=reader_probability,
        reason=reason,
    )


def unstated_judgement(
    verdict: DirectionJudgement, reader_probs: dict[str, float], reader_min: float
) -> EdgeJudgement:
    """The edge of a passage about the claim's exposure and outcome whose words and figures state no
    direction: the direction reader's verdict where it reads a direction with at least ``reader_min``
    (a "no difference" no word states still counts half, ``passage_distribution``), else no vote:
    overlap alone decides no effect."""
    read_as = max(_READ_AS, key=lambda k: reader_probs.get(k, 0.0))
    p = reader_probs.get(read_as, 0.0)
    if verdict.said_of_another:  # "the 25OHD level was higher in those with fractures": the level's change
        return _no_vote(
            verdict,
            p,
            f"the change it states (“{verdict.said_of_another}”) is said of another thing "
            f"than the claim's outcome → no vote (the reader: {_READ_AS[read_as]}, {p:.2f})",
        )
    if p >= reader_min:
        edge = EdgeJudgement.from_direction(verdict)
        return edge.model_copy(
            update={
                "reason": f"{READER_ALONE} {_READ_AS[read_as]} ({p:.2f}); {verdict.reason}",
                "reader_probability": p,
            }
        )
    return _no_vote(verdict, p, f"{NOT_READ} (the reader: {_READ_AS[read_as]}, {p:.2f})")


def judge_triples(
    triples: list[tuple[str, str, str]],
    read: ReaderPredict,
    nli: NliPredict,
    unstated: UnstatedRule = "reader",
    reader_min: float = READER_ALONE_MIN,
) -> list[EdgeJudgement]:
    """Judgements of (claim, passage, paper text) triples: ``read`` gives the direction reader's
    results for (passage, question) pairs and ``nli`` the cross-encoder's for (passage, claim)
    pairs, each as ``{"label", "confidence", "probs"}`` (so callers may serve them from a cache).
    ``unstated`` says who judges a passage about the claim's exposure and outcome whose words and
    figures state no direction: the reader above ``reader_min`` (else no vote), or the cross-encoder."""
    frames = {claim: read_claim(claim) for claim in {t[0] for t in triples}}
    directional = [i for i, (claim, _, _) in enumerate(triples) if frames[claim].directional]
    others = {i: UNDIRECTED for i in range(len(triples)) if not frames[triples[i][0]].directional}
    out: dict[int, EdgeJudgement] = {}
    read_results = read(
        [
            (
                outcome_sentences(frames[triples[i][0]].outcome, triples[i][1], paper_text=triples[i][2]),
                reader_question_for(frames[triples[i][0]], triples[i][1], triples[i][2]),
            )
            for i in directional
        ]
    )
    for i, result in zip(directional, read_results, strict=True):
        claim, passage, paper = triples[i]
        verdict = judge_passage(frames[claim], passage, paper, result["probs"])
        if verdict.passage_direction is not None and not verdict.direction_stated:
            # about the claim's exposure and outcome, but no word or figure states a direction: the reader,
            # trained on trial findings, often guesses there, and the cross-encoder decides by overlap
            if unstated == "reader":
                out[i] = unstated_judgement(verdict, result["probs"], reader_min)
            else:
                others[i] = UNSTATED
            continue
        out[i] = EdgeJudgement.from_direction(verdict)
    for i in list(others):
        # an aim, a method or an open question is no finding for a claim of any kind (docs/direction.md)
        if (no_finding := no_finding_reason(triples[i][1])) is not None:
            out[i] = EdgeJudgement(
                relation="NEUTRAL",
                p_supports=0.0,
                p_refutes=0.0,
                p_neutral=1.0,
                judged_by=DIRECTION,
                reason=f"{no_finding}, not a finding → neutral",
            )
            del others[i]
    order = sorted(others)
    nli_results = nli([(triples[i][1], triples[i][0]) for i in order])
    for i, result in zip(order, nli_results, strict=True):
        relation = {"entailment": "SUPPORTS", "contradiction": "REFUTES"}.get(result["label"], "NEUTRAL")
        out[i] = EdgeJudgement.from_cross_encoder(relation, result["probs"], others[i])
    return [as_vote(out[i]) for i in range(len(triples))]


def as_vote(edge: EdgeJudgement) -> EdgeJudgement:
    """The edge as it votes: a relation read at under ``VOTE_MIN`` is neutral, and its reason says so."""
    relation = counted_relation(edge.relation, edge.p_supports, edge.p_refutes)
    if relation == edge.relation:
        return edge
    p = edge.p_supports if edge.relation == "SUPPORTS" else edge.p_refutes
    return edge.model_copy(
        update={"relation": relation, "reason": f"{edge.reason}; at {p:.2f} less likely than not: no vote"}
    )


class DirectionJudge:
    """The judge with its models loaded and no cache: ``lyra verify``'s and the benches' entry."""

    def __init__(
        self,
        reader_path: str | Path = DEFAULT_DIRECTION_DIR,
        nli_path: str | Path | None = None,
        unstated: UnstatedRule = "reader",
        reader_min: float = READER_ALONE_MIN,
    ):
        self.reader = direction_reader(reader_path)
        self.nli = nli_model(nli_path) if nli_path else nli_model()
        self.unstated, self.reader_min = unstated, reader_min

    def judge_pairs(self, triples: list[tuple[str, str, str]]) -> list[EdgeJudgement]:
        def as_dicts(predictions: list[ReaderPrediction] | list[NliPrediction]) -> list[dict]:
            return [p.model_dump() for p in predictions]

        return judge_triples(
            triples,
            lambda pairs: as_dicts(self.reader.predict(pairs)),
            lambda pairs: as_dicts(self.nli.predict(pairs)),
            self.unstated,
            self.reader_min,
        )
