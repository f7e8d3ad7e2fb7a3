"""Lyra's evidence selector: a cross-encoder trained to find, among a paper's sentences, the ones
that report the finding a claim is about (docs/selector.md).

It scores every sentence of a paper against the claim; the sentence it ranks first is where the
judge reads the paper (``lyra_assets.evidence.learned_edges``). Trained by
``lyra_training.selector`` and shipped in ``model_weights/lyra-selector-minilm-l6``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from pydantic import BaseModel

from lyra_core.sentences import split_sentences
from lyra_resources.models.inference import Reranker, cached_model
from lyra_resources.models.model_files import WEIGHTS_DIR, base_version

DEFAULT_SELECTOR_DIR = WEIGHTS_DIR / "lyra-selector-minilm-l6"


class Selection(BaseModel):
    """Where a claim is read in one paper: the sentence ranked first and its probability."""

    first: int  # index into the paper's sentences
    probability: float
    ranked: list[int]  # every sentence, best first


class EvidenceSelector:
    """The selector's probability for every sentence of each (claim, paper) pair, batched."""

    def __init__(self, path: str | Path = DEFAULT_SELECTOR_DIR):
        self.model = Reranker(path, max_length=128, batch_size=64)

    @property
    def version(self) -> str:
        return base_version(self.model.path)

    def scores(self, claims: list[str], papers: list[list[str]]) -> list[np.ndarray]:
        pairs = [(c, s) for c, sentences in zip(claims, papers, strict=True) for s in sentences]
        logits = self.model.logits(pairs)[:, 0] if pairs else np.zeros(0)
        probs = 1.0 / (1.0 + np.exp(-logits))
        out, start = [], 0
        for sentences in papers:
            out.append(probs[start : start + len(sentences)])
            start += len(sentences)
        return out

    def select(self, claims: list[str], papers: list[list[str]]) -> list[Selection]:
        """For each claim and its paper's sentences (none empty), the sentences ranked."""
        out = []
        for s in self.scores(claims, papers):
            ranked = np.argsort(-s, kind="stable").tolist()
            out.append(Selection(first=ranked[0], probability=float(s[ranked[0]]), ranked=ranked))
        return out

    def select_windows(self, claims: list[str], windows: list[list[str]]) -> list[tuple[int, float]]:
        """For each claim and one paper's windows (in reading order, none empty), the first window
        holding the sentence ranked first among the windows' sentences, and its probability."""
        sentences = [window_sentences(ws) for ws in windows]
        picks = self.select(claims, sentences)
        return [
            (window_holding(ws, sents[pick.first]), pick.probability)
            for ws, sents, pick in zip(windows, sentences, picks, strict=True)
        ]


def window_sentences(windows: list[str]) -> list[str]:
    """A paper's sentences, once each, in reading order, from its overlapping windows."""
    return list(dict.fromkeys(s for w in windows for s in split_sentences(w)))


def window_holding(windows: list[str], sentence: str) -> int:
    """The first of ``windows`` that holds ``sentence``."""
    return next(i for i, w in enumerate(windows) if sentence in w)


def evidence_selector(path: str | Path = DEFAULT_SELECTOR_DIR) -> EvidenceSelector:
    return cached_model("evidence_selector", str(path), lambda: EvidenceSelector(path))
