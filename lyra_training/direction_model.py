"""Train Lyra's direction reader: a cross-encoder that reads, from a finding passage, the direction
of an exposure's effect on an outcome against its comparator (increased / decreased / no
difference), or that the passage is not about them (unrelated).

It starts from the claim verifier's encoder (already fitted to scientific claims and evidence) with
a new four-way head, and learns from Evidence Inference v2 train articles (``direction_data``),
with the shared training loop of ``nli_model.fit_pairs``. Validation articles monitor it; test
articles score it (macro-F1 over the three directions, given the evidence span). docs/direction.md.
"""

from __future__ import annotations

import json
import logging
import random
import time
from pathlib import Path

from pydantic import BaseModel

from lyra_core.training_metrics import accuracy, macro_f1
from lyra_resources.models.model_files import DEFAULT_NLI_DIR
from lyra_training.direction_data import (
    DIRECTION2ID,
    ID2DIRECTION,
    DirectionPair,
    evaluation_pairs,
    read_findings,
    training_pairs,
)
from lyra_training.nli_batches import training_batches
from lyra_training.nli_model import fit_pairs, load_base_model, log_progress, save_fp16

log = logging.getLogger(__name__)
DIRECTIONS = ("increased", "decreased", "no_difference")


class DirectionRecipe(BaseModel):
    """Hyper-parameters of the direction reader (recorded beside the weights)."""

    seed: int = 13
    epochs: int = 4
    lr: float = 5e-5
    batch_size: int = 16
    max_length: int = 256
    swap_rate: float = 0.0  # asking spans the other way round hurt (model card)
    unnamed_rate: float = 0.35
    unrelated_rate: float = 0.35
    limit: int | None = None  # smoke runs: cap the training findings
    evaluate: bool = True  # smoke runs: skip the validation and test figures


class DirectionScores(BaseModel):
    """The reader's figures on one set of annotated spans."""

    pairs: int
    accuracy: float
    macro_f1: float
    per_class_f1: dict[str, float]


def direction_logits(model_dir: Path, pairs: list[DirectionPair], max_length: int):
    from lyra_resources.models.inference import PairClassifier

    return PairClassifier(model_dir, max_length=max_length, batch_size=32).logits(
        [(p.premise, p.hypothesis) for p in pairs]
    )


def score_directions(gold: list[str], logits) -> DirectionScores:
    """Macro-F1 over the three directions; the span is given, so ``unrelated`` is never an answer."""
    predicted = [DIRECTIONS[int(row[:3].argmax())] for row in logits]
    per_class = {label: round(_f1(gold, predicted, label), 4) for label in DIRECTIONS}
    return DirectionScores(
        pairs=len(gold),
        accuracy=round(accuracy(gold, predicted), 4),
        macro_f1=round(macro_f1(gold, predicted), 4),
        per_class_f1=per_class,
    )


def _f1(gold: list[str], predicted: list[str], label: str) -> float:
    tp = sum(g == label and p == label for g, p in zip(gold, predicted, strict=True))
    fp = sum(g != label and p == label for g, p in zip(gold, predicted, strict=True))
    fn = sum(g == label and p != label for g, p in zip(gold, predicted, strict=True))
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


CORRECTION_REPEATS = 3  # a reviewer's correction is seen three times per pass: few, and read with care


def train_direction_reader(
    data_dir: Path,
    out_dir: Path,
    recipe: DirectionRecipe | None = None,
    base_dir: Path = DEFAULT_NLI_DIR,
    threads: int = 2,
    corrections: list[DirectionPair] | None = None,
) -> dict:
    """Train on Evidence Inference train articles (and reviewers' ``corrections`` of what a passage
    reports), save to ``out_dir`` with ``training.json``, and return the recipe and the validation
    and test figures."""
    import torch

    recipe = recipe or DirectionRecipe()
    torch.set_num_threads(threads)
    torch.manual_seed(recipe.seed)
    folder = data_dir / "evidence_inference"
    train = read_findings(folder, "train")[: recipe.limit]
    pairs = training_pairs(train, recipe.seed, recipe.swap_rate, recipe.unnamed_rate, recipe.unrelated_rate)
    pairs += [pair for pair in corrections or [] for _ in range(CORRECTION_REPEATS)]
    monitor = evaluation_pairs(read_findings(folder, "validation"))
    rng = random.Random(recipe.seed + 1)
    batches = [
        batch
        for _ in range(recipe.epochs)
        for batch in training_batches(rng.sample(pairs, len(pairs)), recipe.batch_size, rng, True)
    ]
    log.info("direction reader: %d findings → %d pairs, %d steps", len(train), len(pairs), len(batches))
    model, tokenizer = load_base_model(base_dir, ID2DIRECTION)
    started = time.monotonic()
    fitted = fit_pairs(
        model,
        tokenizer,
        batches,
        monitor[:200] if recipe.evaluate else [],
        lr=recipe.lr,
        max_length=recipe.max_length,
        eval_every=max(len(batches) // 4, 1),
        log_every=50,
        progress=log_progress,
        label_ids=DIRECTION2ID,
    )
    save_fp16(model, tokenizer, out_dir)
    seconds = round(time.monotonic() - started, 1)
    figures = {}
    for split in ("validation", "test") if recipe.evaluate else ():
        spans = evaluation_pairs(read_findings(folder, split))
        figures[split] = score_directions(
            [p.label for p in spans], direction_logits(out_dir, spans, recipe.max_length)
        ).model_dump()
    record = {
        "recipe": recipe.model_dump(),
        "base": base_dir.name,
        "train_findings": len(train),
        "train_pairs": len(pairs),
        "corrections": len(corrections or []),
        "steps": fitted.steps,
        "seconds": seconds,
        "final_loss": fitted.final_loss,
        "monitor_history": fitted.history,
        "evaluation": figures,
    }
    (out_dir / "training.json").write_text(json.dumps(record, indent=2) + "\n")
    return record
