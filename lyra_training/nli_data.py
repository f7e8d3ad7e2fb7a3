"""Lyra's NLI labels and the labelled pairs its models learn from: SNLI jsonl files, the shipped
replay and regression slices, and the seeded train / monitoring split of a training file."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

log = logging.getLogger(__name__)

NliLabel = Literal["entailment", "neutral", "contradiction"]

# Same order as the public cross-encoder/nli-* models, so code written against those reads ours too.
ID2LABEL: dict[int, NliLabel] = {0: "contradiction", 1: "entailment", 2: "neutral"}
LABEL2ID: dict[NliLabel, int] = {label: idx for idx, label in ID2LABEL.items()}
LABELS: tuple[NliLabel, ...] = tuple(ID2LABEL[i] for i in range(len(ID2LABEL)))

# How Lyra's evidence graph reads each NLI class.
EVIDENCE_RELATION: dict[NliLabel, str] = {
    "entailment": "SUPPORTS",
    "contradiction": "REFUTES",
    "neutral": "NEUTRAL",
}

EVAL_SUBSET_SIZE = 1_000


class NliPair(BaseModel):
    """One premise/hypothesis pair with its gold label."""

    premise: str
    hypothesis: str
    label: NliLabel


class SnliFile(BaseModel):
    """The usable pairs of an SNLI jsonl file, and how many were skipped for having no gold label."""

    pairs: list[NliPair]
    skipped_no_gold: int = 0


def read_snli(path: str | Path, limit: int | None = None) -> SnliFile:
    """Read SNLI 1.0 jsonl (``sentence1``/``sentence2``/``gold_label``); ``limit`` caps the usable pairs.

    Pairs whose annotators did not agree carry the gold label "-"; they have no answer, so they are skipped
    and counted rather than guessed.
    """
    pairs: list[NliPair] = []
    skipped = 0
    with Path(path).open(encoding="utf-8") as handle:
        for line in handle:
            if limit is not None and len(pairs) >= limit:
                break
            if not line.strip():
                continue
            item = json.loads(line)
            label = item.get("gold_label", item.get("label"))
            if label not in LABEL2ID:
                skipped += 1
                continue
            pairs.append(
                NliPair(
                    premise=item.get("sentence1", item.get("premise")),
                    hypothesis=item.get("sentence2", item.get("hypothesis")),
                    label=label,
                )
            )
    return SnliFile(pairs=pairs, skipped_no_gold=skipped)


def load_snli_pairs(path: str | Path, limit: int | None = None) -> list[NliPair]:
    """The usable pairs of an SNLI jsonl file (see :func:`read_snli`); logs how many were skipped."""
    data = read_snli(path, limit)
    log.info(
        "read %d pairs from %s, skipped %d without gold label", len(data.pairs), path, data.skipped_no_gold
    )
    return data.pairs


def read_pairs(path: Path, limit: int | None = None) -> list[NliPair]:
    """A JSONL file of premise / hypothesis / label (the shipped replay and regression slices)."""
    pairs = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                pairs.append(NliPair.model_validate_json(line))
                if limit is not None and len(pairs) >= limit:
                    break
    return pairs


def split_train_eval(
    train_pairs: list[NliPair], eval_path: str | Path | None, max_pairs: int, eval_size: int, seed: int
) -> tuple[list[NliPair], list[NliPair], str]:
    """A seeded shuffle of the training pairs, cut to ``max_pairs``, plus a fixed monitoring subset.

    Without ``eval_path`` the monitoring subset is held out of the training file (at most a tenth of it),
    so it never overlaps the pairs the model learns from.
    """
    rng = random.Random(seed)
    shuffled = list(train_pairs)
    rng.shuffle(shuffled)
    if eval_path is None:
        held_out = min(eval_size, len(shuffled) // 10)
        eval_pairs, shuffled = shuffled[:held_out], shuffled[held_out:]
        source = f"{held_out} pairs held out of the training file"
    else:
        candidates = load_snli_pairs(eval_path)
        eval_pairs = random.Random(seed + 1).sample(candidates, min(eval_size, len(candidates)))
        source = f"{len(eval_pairs)} seeded pairs of {eval_path}"
    return shuffled[:max_pairs], eval_pairs, source
