"""How well a classifier did on labelled pairs: accuracy, macro-F1, per-class scores from a
confusion matrix. Labels are plain strings or ids; nothing here knows about models."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from pydantic import BaseModel


class Metrics(BaseModel):
    """A model's figures on one labelled set."""

    pairs: int
    accuracy: float
    macro_f1: float


class ClassScores(BaseModel):
    precision: float
    recall: float
    f1: float
    support: int


def accuracy(gold: Sequence[Hashable], predicted: Sequence[Hashable]) -> float:
    """The share of predictions equal to the gold label (0 for an empty set)."""
    correct = sum(g == p for g, p in zip(gold, predicted, strict=True))
    return correct / max(len(gold), 1)


def macro_f1(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """The mean F1 over the classes present in the gold labels (a class never gold is not scored)."""
    scores = []
    for label in sorted(set(gold)):
        tp = sum(g == label and p == label for g, p in zip(gold, predicted, strict=True))
        fp = sum(g != label and p == label for g, p in zip(gold, predicted, strict=True))
        fn = sum(g == label and p != label for g, p in zip(gold, predicted, strict=True))
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return sum(scores) / len(scores) if scores else 0.0


def metrics(gold: Sequence[str], predicted: Sequence[str]) -> Metrics:
    """Accuracy and macro-F1, rounded to 4 places."""
    return Metrics(
        pairs=len(gold),
        accuracy=round(accuracy(gold, predicted), 4),
        macro_f1=round(macro_f1(gold, predicted), 4),
    )


def class_scores(confusion: list[list[int]], labels: Sequence[str]) -> dict[str, ClassScores]:
    """Precision, recall, F1 and support per label; ``confusion`` rows are gold, columns predicted,
    both in ``labels`` order."""
    scores: dict[str, ClassScores] = {}
    for k, label in enumerate(labels):
        true_pos = confusion[k][k]
        predicted = sum(row[k] for row in confusion)
        support = sum(confusion[k])
        precision = true_pos / predicted if predicted else 0.0
        recall = true_pos / support if support else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        scores[label] = ClassScores(
            precision=round(precision, 4), recall=round(recall, 4), f1=round(f1, 4), support=support
        )
    return scores
