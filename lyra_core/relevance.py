"""Relevance of a claim to the question: embedding cosine sharpened by coverage of the question's terms.

Cosine alone ranks "vitamin E may reduce the risk of prostate cancer" close to a question about
vitamin D and fracture risk: both are about a vitamin reducing a risk. What sets them apart are
the question's own concepts (``vitamin d``, ``fractur``), so the score mixes the cosine with the
share of the question's terms and adjacent-term pairs the claim mentions, each weighted by its
inverse document frequency in the texts at hand (the task's fragments), so that a word every
fragment shares counts for less than the question's distinctive one.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lyra_core.text import STOP_WORDS, fold_accents

if TYPE_CHECKING:  # numpy is imported by claim_relevance: the settings read this module's defaults without it
    import numpy as np

# Chosen on SciFact train claims used as questions, tune side only (bench/claim_relevance.py):
# the weight of best AUC, the threshold of best F1 at it.
DEFAULT_COSINE_WEIGHT = 0.6
DEFAULT_MIN_RELEVANCE = 0.53

_WORD = re.compile(r"[^\W_]+")
# Longest first; a stem keeps at least 3 characters, so "fracture"/"fractures" → "fractur" and
# "reduce"/"reduced"/"reduces" → "reduc" while short words stay whole.
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ed", "es", "s", "e", "y")


def stem(word: str) -> str:
    """A light suffix strip: enough to match plurals and verb forms, never a dictionary look-up."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word[-2] in "sui":  # "mass", "virus", "analysis" keep their s
                return word
            return word[: -len(suffix)]
    return word


def terms(text: str | None) -> list[str]:
    """Stemmed content words in order. Unlike ``text.tokenize`` single letters and digits stay:
    the "D" of "vitamin D" or the "2" of "type 2 diabetes" is what tells two claims apart."""
    if not text:
        return []
    words = _WORD.findall(fold_accents(text).lower())
    return [stem(w) for w in words if w not in STOP_WORDS]


def concepts(text: str | None) -> set[str]:
    """A text's terms and its pairs of adjacent terms ("vitamin d", "fractur risk")."""
    seq = terms(text)
    return set(seq) | {f"{a} {b}" for a, b in zip(seq, seq[1:], strict=False)}


@dataclass(frozen=True)
class TermWeights:
    """Smoothed idf, log(1 + N / df), of concepts over a set of texts (an unseen one counts as if
    in half a text). With no texts every concept weighs the same."""

    documents: int = 0
    frequency: dict[str, int] = field(default_factory=dict)

    def weight(self, concept: str) -> float:
        if not self.documents:
            return 1.0
        return math.log(1 + self.documents / max(self.frequency.get(concept, 0), 0.5))


def term_weights(texts: Iterable[str]) -> TermWeights:
    counts: Counter[str] = Counter()
    n = 0
    for text in texts:
        counts.update(concepts(text))
        n += 1
    return TermWeights(documents=n, frequency=dict(counts))


def coverage(question: str, claim: str, weights: TermWeights) -> float:
    """Weighted share (0..1) of the question's concepts that the claim mentions; 0 for a question
    without content words. A concept none of the texts at hand contains is left out: it is an
    accident of the question's wording ("supplement reduc"), and no claim drawn from them has it."""
    wanted = {c for c in concepts(question) if not weights.documents or c in weights.frequency}
    total = sum(weights.weight(c) for c in wanted)
    if not total:
        return 0.0
    have = concepts(claim)
    return sum(weights.weight(c) for c in wanted if c in have) / total


def claim_relevance(
    question: str,
    claims: Sequence[str],
    cosines: np.ndarray,
    weights: TermWeights,
    cosine_weight: float = DEFAULT_COSINE_WEIGHT,
) -> np.ndarray:
    """Each claim's relevance to the question, roughly 0..1: ``cosine_weight`` × its embedding
    cosine + (1 − ``cosine_weight``) × its coverage of the question's concepts."""
    import numpy as np

    cov = np.array([coverage(question, c, weights) for c in claims], dtype=float)
    return cosine_weight * np.asarray(cosines, dtype=float) + (1 - cosine_weight) * cov
