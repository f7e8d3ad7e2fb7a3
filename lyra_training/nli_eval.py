"""The NLI model on a labelled test file: accuracy, per-class precision/recall/F1, the confusion
matrix and the inference speed."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from lyra_core.training_metrics import ClassScores, accuracy, class_scores
from lyra_training.nli_batches import predict_ids
from lyra_training.nli_data import LABEL2ID, LABELS, read_snli

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


class EvalReport(BaseModel):
    """Accuracy and per-class scores on a labelled test file."""

    test_file: str
    pairs: int
    skipped_no_gold: int
    accuracy: float
    macro_f1: float
    per_class: dict[str, ClassScores]
    labels: list[str]  # row/column order of the confusion matrix
    confusion_matrix: list[list[int]]  # rows: gold, columns: predicted
    seconds: float
    pairs_per_s: float
    num_threads: int | None = None  # torch threads during inference; None if unknown


def load_nli_model(model_dir: str | Path) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """The saved classifier in float32 on CPU (the fp16 weights are upcast on load)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model = AutoModelForSequenceClassification.from_pretrained(model_dir, dtype=torch.float32)
    return model.to("cpu").eval(), AutoTokenizer.from_pretrained(model_dir)


def evaluate_nli_model(
    model_dir: str | Path,
    test_path: str | Path,
    batch_size: int = 64,
    *,
    max_length: int = 128,
    limit: int | None = None,
    num_threads: int = 2,
) -> EvalReport:
    """Accuracy, per-class precision/recall/F1 and the confusion matrix on every gold-labelled test pair."""
    import torch

    torch.set_num_threads(num_threads)
    model, tokenizer = load_nli_model(model_dir)
    # The saved label mapping is the source of truth: map model ids back through it, not through ID2LABEL.
    saved_id2label = model.config.id2label or {}
    model_label_to_ours = {int(i): LABELS.index(name) for i, name in saved_id2label.items()}
    data = read_snli(test_path, limit)

    started = time.perf_counter()
    predicted = [
        model_label_to_ours[i] for i in predict_ids(model, tokenizer, data.pairs, batch_size, max_length)
    ]
    seconds = time.perf_counter() - started

    confusion = [[0] * len(LABELS) for _ in LABELS]
    for pred, pair in zip(predicted, data.pairs, strict=True):
        confusion[LABEL2ID[pair.label]][pred] += 1
    per_class = class_scores(confusion, LABELS)
    return EvalReport(
        test_file=str(test_path),
        pairs=len(data.pairs),
        skipped_no_gold=data.skipped_no_gold,
        accuracy=round(accuracy([LABEL2ID[p.label] for p in data.pairs], predicted), 4),
        macro_f1=round(sum(s.f1 for s in per_class.values()) / len(per_class), 4),
        per_class=per_class,
        labels=list(LABELS),
        confusion_matrix=confusion,
        seconds=round(seconds, 1),
        pairs_per_s=round(len(data.pairs) / seconds, 1) if seconds else 0.0,
        num_threads=num_threads,
    )
