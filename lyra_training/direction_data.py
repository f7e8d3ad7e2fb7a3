"""What the direction reader learns from: Evidence Inference v2 evidence spans, each with the
intervention, comparator and outcome it reports on and the direction found (significantly increased,
significantly decreased, no significant difference), split by article as the authors split them.

A pair is (passage, "effect of I versus C on O") → ``increased`` / ``decreased`` / ``no_difference``,
or ``unrelated`` for a passage paired with another trial's question. Training adds the same span
with intervention and comparator swapped (the label flips: the direction is always read from the
comparator to the intervention), with the comparator left unnamed (Lyra's claims rarely name one),
and with other trials' questions; evaluation uses the spans as annotated. docs/direction.md.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from lyra_core.direction.verdict import reader_question

DirectionLabel = Literal["increased", "decreased", "no_difference", "unrelated"]
ID2DIRECTION: dict[int, DirectionLabel] = {0: "increased", 1: "decreased", 2: "no_difference", 3: "unrelated"}
DIRECTION2ID: dict[str, int] = {label: idx for idx, label in ID2DIRECTION.items()}
_FROM_ANNOTATION = {
    "significantly increased": "increased",
    "significantly increase": "increased",
    "significantly decreased": "decreased",
    "no significant difference": "no_difference",
}
_SWAPPED = {"increased": "decreased", "decreased": "increased", "no_difference": "no_difference"}


class DirectionPair(BaseModel):
    """A passage and the question it is read against, with the direction it reports."""

    premise: str  # the passage
    hypothesis: str  # "effect of I versus C on O"
    label: DirectionLabel
    article: str = ""
    source: str = "evidence_inference"


class Finding(BaseModel):
    """One annotated evidence span of Evidence Inference."""

    article: str
    prompt: str
    intervention: str
    comparator: str
    outcome: str
    span: str
    label: DirectionLabel


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split()).strip(" .;,")
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0]


def read_findings(folder: Path, split: str) -> list[Finding]:
    """The annotated spans of the articles of ``split`` (``train``, ``validation``, ``test``), one per
    prompt and span text (several annotators often marked the same span)."""
    articles = set((folder / "splits" / f"ev2_{split}_article_ids.txt").read_text().split())
    with (folder / "prompts_merged.csv").open(encoding="utf-8") as handle:
        prompts = {row["PromptID"]: row for row in csv.DictReader(handle)}
    seen: set[tuple[str, str]] = set()
    findings = []
    with (folder / "v2_annotations.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            prompt = prompts.get(row["PromptID"])
            span = " ".join((row.get("Annotations") or "").split())
            label = _FROM_ANNOTATION.get(row["Label"].strip())
            if (
                row["PMCID"] not in articles
                or prompt is None
                or label is None
                or not 15 <= len(span) <= 1200
                or (row["PromptID"], span) in seen
            ):
                continue
            seen.add((row["PromptID"], span))
            findings.append(
                Finding(
                    article=row["PMCID"],
                    prompt=row["PromptID"],
                    span=span,
                    label=label,
                    intervention=_short(prompt["Intervention"]),
                    comparator=_short(prompt["Comparator"]),
                    outcome=_short(prompt["Outcome"]),
                )
            )
    return findings


def evaluation_pairs(findings: list[Finding]) -> list[DirectionPair]:
    """The spans against their own question, as annotated."""
    return [
        DirectionPair(
            premise=f.span,
            hypothesis=reader_question(f.intervention, f.outcome, f.comparator),
            label=f.label,
            article=f.article,
        )
        for f in findings
    ]


def training_pairs(
    findings: list[Finding],
    seed: int = 13,
    swap_rate: float = 0.5,
    unnamed_rate: float = 0.35,
    unrelated_rate: float = 0.35,
) -> list[DirectionPair]:
    """Each span as annotated (its comparator unnamed at ``unnamed_rate``), swapped at ``swap_rate``,
    and against another article's question at ``unrelated_rate``."""
    rng = random.Random(seed)
    pairs: list[DirectionPair] = []
    for f in findings:
        comparator = "" if rng.random() < unnamed_rate else f.comparator
        pairs.append(
            DirectionPair(
                premise=f.span,
                hypothesis=reader_question(f.intervention, f.outcome, comparator),
                label=f.label,
                article=f.article,
            )
        )
        if rng.random() < swap_rate:
            pairs.append(
                DirectionPair(
                    premise=f.span,
                    hypothesis=reader_question(f.comparator, f.outcome, f.intervention),
                    label=_SWAPPED[f.label],
                    article=f.article,
                    source="evidence_inference_swapped",
                )
            )
        if rng.random() < unrelated_rate:
            other = rng.choice(findings)
            if other.article != f.article:
                pairs.append(
                    DirectionPair(
                        premise=f.span,
                        hypothesis=reader_question(other.intervention, other.outcome, other.comparator),
                        label="unrelated",
                        article=f.article,
                        source="evidence_inference_other",
                    )
                )
    rng.shuffle(pairs)
    return pairs


def correction_pairs(rows: list[dict]) -> list[DirectionPair]:
    """Reviewers' corrections that say what a passage reports (``nli_corrections`` rows with a
    ``direction_label``: the claim's premise, its hypothesis read into exposure and outcome)."""
    from lyra_core.direction.claim_frame import read_claim

    pairs = []
    for row in rows:
        frame = read_claim(row["hypothesis"])
        if row.get("direction_label") in DIRECTION2ID and frame.directional:
            pairs.append(
                DirectionPair(
                    premise=row["premise"],
                    hypothesis=reader_question(frame.exposure, frame.outcome),
                    label=row["direction_label"],
                    source="correction",
                )
            )
    return pairs
