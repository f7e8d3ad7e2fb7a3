"""Lyra's judge of (claim, passage) pairs: direction read explicitly for claims about an effect, the
cross-encoder for the rest.

For an effect claim the claim's frame (``lyra_core.direction.claim_frame``), the passage's figures
and words, the learned direction reader's probabilities and the exposure/outcome check compose the
relation (``lyra_core.direction.verdict``); every judgement carries its parts and a one-line reason.
docs/direction.md describes the whole.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path

from pydantic import BaseModel

from lyra_core.direction.claim_frame import ClaimFrame, read_claim
from lyra_core.direction.passage import read_passage, states_no_finding
from lyra_core.direction.relevance import relevance
from lyra_core.direction.verdict import claim_direction, judge, passage_distribution
from lyra_resources.model_files import DEFAULT_DIRECTION_DIR, DEFAULT_NLI_DIR, ModelError, base_version
from lyra_resources.models import NliModel, PairClassifier, nli_model, softmax

READER_LABELS = ("increased", "decreased", "no_difference", "unrelated")


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

    @property
    def confidence(self) -> float:
        return max(self.p_supports, self.p_refutes, self.p_neutral)


def reader_question(frame: ClaimFrame) -> str:
    """How the reader is asked about a passage for this claim (as in its training)."""
    return f"effect of {frame.exposure} versus control on {frame.outcome}"


class DirectionReader(PairClassifier):
    """The learned reader: passage × "effect of X versus control on Y" → increased / decreased /
    no difference / unrelated probabilities."""

    def __init__(self, path: str | Path = DEFAULT_DIRECTION_DIR, max_length: int = 192, batch_size: int = 32):
        if not Path(path).exists():
            raise ModelError(f"the direction reader is missing at {path}: it ships with Lyra's source tree "
                             "(lyra_resources/model_weights/); rebuild it with `lyra models train-direction`")
        super().__init__(path, max_length=max_length, batch_size=batch_size)

    @cached_property
    def version(self) -> str:
        return base_version(self.path)

    def probabilities(self, pairs: list[tuple[str, str]], on_batch: Callable[[int], None] | None = None
                      ) -> list[dict[str, float]]:
        rows = softmax(self.logits(pairs, on_batch)) if pairs else []
        return [dict(zip(READER_LABELS, map(float, row), strict=True)) for row in rows]


class DirectionJudge:
    """Judges (claim, passage, paper text) triples; ``paper_text`` (title and abstract) lets a
    results sentence that says "the treatment group" count as about the claim's exposure."""

    def __init__(self, reader_path: str | Path = DEFAULT_DIRECTION_DIR, nli: NliModel | None = None):
        self.reader_path = reader_path
        self._nli = nli

    @cached_property
    def reader(self) -> DirectionReader:
        return DirectionReader(self.reader_path)

    @property
    def nli(self) -> NliModel:
        return self._nli or nli_model(DEFAULT_NLI_DIR)

    @cached_property
    def version(self) -> str:
        return f"{self.nli.version}+{self.reader.version}"

    def judge_pairs(self, triples: list[tuple[str, str, str]],
                    on_batch: Callable[[int], None] | None = None) -> list[EdgeJudgement]:
        frames = {claim: read_claim(claim) for claim in {t[0] for t in triples}}
        directional = [i for i, (claim, _, _) in enumerate(triples) if frames[claim].directional]
        others = [i for i in range(len(triples)) if i not in set(directional)]
        out: list[EdgeJudgement | None] = [None] * len(triples)
        asked = [(triples[i][1], reader_question(frames[triples[i][0]])) for i in directional]
        for i, probs in zip(directional, self.reader.probabilities(asked, on_batch), strict=True):
            claim, passage, paper = triples[i]
            out[i] = self._directional(frames[claim], passage, paper, probs)
        if others:
            for i, prediction in zip(others, self.nli.predict([(triples[i][1], triples[i][0]) for i in others],
                                                              on_batch), strict=True):
                out[i] = EdgeJudgement(
                    relation=prediction.relation, p_supports=prediction.probs["entailment"],
                    p_refutes=prediction.probs["contradiction"], p_neutral=prediction.probs["neutral"],
                    judged_by="cross-encoder",
                    reason=f"the claim states no direction of an effect; the cross-encoder reads "
                           f"{prediction.relation.lower()} ({prediction.confidence:.2f})")
        return [judgement for judgement in out if judgement is not None]

    @staticmethod
    def _directional(frame: ClaimFrame, passage: str, paper: str, probs: dict[str, float]) -> EdgeJudgement:
        if states_no_finding(passage):
            return EdgeJudgement(relation="NEUTRAL", p_supports=0.0, p_refutes=0.0, p_neutral=1.0,
                                 judged_by="direction", claim_direction=claim_direction(frame),
                                 reason="states an aim or a method, not a finding → neutral")
        reading = read_passage(passage, frame.exposure, frame.outcome)
        about = relevance(frame.exposure, frame.outcome, passage, paper)
        verdict = judge(frame, passage_distribution(probs, reading), reading, about)
        return EdgeJudgement(relation=verdict.relation, p_supports=verdict.p_supports, p_refutes=verdict.p_refutes,
                             p_neutral=verdict.p_neutral, judged_by="direction",
                             claim_direction=verdict.claim_direction, passage_direction=verdict.passage_direction,
                             effect_figures=verdict.figures, exposure_matched=verdict.exposure_matched,
                             outcome_matched=verdict.outcome_matched, reason=verdict.reason)
