"""Lyra's label model: reads a claim with the sentences the evidence selector chose from one paper
and says SUPPORTS, REFUTES or NEUTRAL, with calibrated probabilities (docs/selector.md).

The selector ranks the paper's sentences; the best ``sentences`` of them, in the paper's own order,
are the passage the model reads — and the passage an edge shows, so the reader sees what the
verdict rests on. Where the model was trained with the figure reader's note
(``training.json``: ``recipe.figures``), the same note is written beside the passage here.
Trained by ``lyra_training.label_model``.
"""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path

from pydantic import BaseModel

from lyra_core.figure_notes import figures_note
from lyra_resources.models.evidence_selector import EvidenceSelector, evidence_selector
from lyra_resources.models.inference import NliModel, NliPrediction, cached_model
from lyra_resources.models.model_files import WEIGHTS_DIR, ModelError

DEFAULT_LABEL_DIR = WEIGHTS_DIR / "lyra-label-minilm-l6"
LEARNED = "label-model"  # an edge's judged_by where the label model read it


class PaperReading(BaseModel):
    """What the label model read in one paper for one claim, and what it says."""

    relation: str  # SUPPORTS / REFUTES / NEUTRAL
    confidence: float
    probs: dict[str, float]  # entailment / contradiction / neutral
    sentences: list[int]  # the sentences read, in the paper's order
    best: int  # the sentence the selector ranks first
    passage: str  # those sentences as shown (without the figure note)
    figures: str  # the figure reader's note the model read beside them ("" where none)
    selector_probability: float  # the selector's probability for the best sentence

    def described(self) -> str:
        """What was read and what the model says of it, as an edge's reason gives it."""
        read = ", ".join(str(i + 1) for i in self.sentences)
        return (
            f"the label model reads {self.relation.lower()} ({self.confidence:.2f}) in the paper's "
            f"sentence{'s' if len(self.sentences) > 1 else ''} {read}, where the evidence selector finds "
            f"the finding (p {self.selector_probability:.2f})"
        )


class LabelModel:
    def __init__(
        self,
        path: str | Path = DEFAULT_LABEL_DIR,
        selector: EvidenceSelector | None = None,
        sentences: int = 2,
        max_length: int = 160,
    ):
        self.path = Path(path)
        if not (self.path / "config.json").exists():
            raise ModelError(
                f"the label model is missing at {self.path}: train it with "
                "`python -m lyra_training.judge_training --label-only` (docs/selector.md)"
            )
        self.selector = selector or evidence_selector()
        self.sentences = sentences
        self.model = NliModel(self.path, max_length=max_length, batch_size=32)

    @cached_property
    def figures(self) -> bool:
        """Whether the model was trained with the figure reader's note beside each passage."""
        record = self.path / "training.json"
        if not record.exists():
            return False
        return bool(json.loads(record.read_text()).get("recipe", {}).get("figures", False))

    @property
    def version(self) -> str:
        return self.model.version

    def notes(self, passages: list[str]) -> list[str]:
        """The figure reader's note for each passage ("" everywhere where the model reads none)."""
        return [figures_note(p) if self.figures else "" for p in passages]

    def judge(
        self, claims: list[str], passages: list[str], notes: list[str] | None = None
    ) -> list[NliPrediction]:
        """The model's reading of each claim against a passage given whole (no selection), with
        ``notes`` where the caller already has them."""
        notes = self.notes(passages) if notes is None else notes
        shown = [f"{p} {n}" if n else p for p, n in zip(passages, notes, strict=True)]
        return self.model.predict(list(zip(shown, claims, strict=True)))

    def read(self, claims: list[str], papers: list[list[str]]) -> list[PaperReading]:
        """For each claim and one paper's sentences (none empty), the model's reading of the
        sentences the selector ranks highest."""
        picks = self.selector.select(claims, papers)
        chosen = [sorted(p.ranked[: self.sentences]) for p in picks]
        passages = [" ".join(s[i] for i in c) for s, c in zip(papers, chosen, strict=True)]
        notes = self.notes(passages)
        predictions = self.judge(claims, passages, notes)
        return [
            PaperReading(
                relation=p.relation,
                confidence=p.confidence,
                probs=p.probs,
                sentences=c,
                best=pick.first,
                passage=text,
                figures=note,
                selector_probability=pick.probability,
            )
            for p, c, text, note, pick in zip(predictions, chosen, passages, notes, picks, strict=True)
        ]


def label_model(path: str | Path = DEFAULT_LABEL_DIR) -> LabelModel:
    selector = evidence_selector()  # cached on its own first: the model cache's lock is not re-entrant
    return cached_model("label_model", str(path), lambda: LabelModel(path, selector))
