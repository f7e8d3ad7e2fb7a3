"""SciFact's own abstract-level and sentence-level figures, so Lyra's judge stands beside published ones.

The definitions are SciFact's (Wadden et al. 2020, "Fact or Fiction"):

- **Abstract-level.** A predicted abstract (label SUPPORT or CONTRADICT) is right, *label only*, when
  the claim's gold evidence holds it with that label; *label and rationale* when, in addition, one gold
  evidence set lies wholly among its first three predicted sentences. Precision over predicted
  abstracts, recall over gold ones.
- **Sentence-level.** A predicted sentence is right, *selection only*, when its abstract is gold and it
  belongs to a gold evidence set all of whose sentences were predicted; *selection and label* when the
  abstract's label is right too. Every predicted sentence counts. Precision over predicted sentences,
  recall over gold ones.

Predictions map claim → paper → (label, sentence indices); gold maps claim → paper → (label, evidence
sets). An abstract predicted NEI is no prediction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

MAX_ABSTRACT_SENTENCES = 3  # SciFact counts a paper's first three predicted sentences only

Predicted = Mapping[object, Mapping[str, tuple[str, Sequence[int]]]]
Gold = Mapping[object, Mapping[str, tuple[str, Sequence[Sequence[int]]]]]


def _f1(correct: int, predicted: int, relevant: int) -> tuple[float, float, float]:
    precision = correct / predicted if predicted else 0.0
    recall = correct / relevant if relevant else 0.0
    return precision, recall, 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def official_scores(predicted: Predicted, gold: Gold) -> dict[str, tuple[float, float, float]]:
    """(precision, recall, F1) for the four SciFact measures, over the claims of ``gold``."""
    counts = dict.fromkeys(
        ("abstract_label", "abstract_rationale", "sentence_selection", "sentence_label"), 0
    )
    abstracts_predicted = abstracts_gold = sentences_predicted = sentences_gold = 0
    for claim, papers in gold.items():
        abstracts_gold += len(papers)
        sentences_gold += sum(len(s) for _, sets in papers.values() for s in sets)
        for paper, (label, sentences) in predicted.get(claim, {}).items():
            if label not in ("SUPPORT", "CONTRADICT"):
                continue
            abstracts_predicted += 1
            sentences_predicted += len(set(sentences))
            if paper not in papers:
                continue
            gold_label, sets = papers[paper]
            label_right = label == gold_label
            first = set(list(sentences)[:MAX_ABSTRACT_SENTENCES])
            counts["abstract_label"] += label_right
            counts["abstract_rationale"] += label_right and any(set(s) <= first for s in sets)
            chosen = set(sentences)
            whole = [set(s) for s in sets if set(s) <= chosen]
            right = {i for s in whole for i in s}
            counts["sentence_selection"] += len(right)
            counts["sentence_label"] += len(right) if label_right else 0
    return {
        "abstract_label": _f1(counts["abstract_label"], abstracts_predicted, abstracts_gold),
        "abstract_rationale": _f1(counts["abstract_rationale"], abstracts_predicted, abstracts_gold),
        "sentence_selection": _f1(counts["sentence_selection"], sentences_predicted, sentences_gold),
        "sentence_label": _f1(counts["sentence_label"], sentences_predicted, sentences_gold),
    }


def format_scores(name: str, scores: Mapping[str, tuple[float, float, float]]) -> str:
    cells = "  ".join(f"{k} F1 {v[2]:.3f} (P {v[0]:.2f} R {v[1]:.2f})" for k, v in scores.items())
    return f"  {name:<40} {cells}"
