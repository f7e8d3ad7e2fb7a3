"""Stage 3 for whole papers: the query's cosine with each paper's best-matching sentence.

A paper's embedding averages its whole abstract; the sentence that states what the query asks is
diluted by background and methods. Scoring the best sentence of each of the fused top papers and
blending it with the fused score (``RankingConfig.rerank_weight``) lifts nDCG@10 on BEIR-SciFact
(``bench/ranking.py``), where the cross-encoders tried did not. Sentence embeddings go through the
home's embedding cache, so a paper's sentences are embedded once.
"""

from __future__ import annotations

import numpy as np

from lyra_core.fragments import split_sentences
from lyra_resources.models.local_models import LocalModels
from lyra_resources.store.lyra_store import LyraStore


class SentenceMatch:
    """A stage-3 scorer (``score(query, passages)``, as ``Reranker``) without a cross-encoder."""

    def __init__(self, models: LocalModels, store: LyraStore) -> None:
        self.encode = models.cached_encoder(store)

    def score(self, query: str, passages: list[str]) -> np.ndarray:
        """Highest cosine of ``query`` with any sentence of each passage (0 for an empty one)."""
        sentences = [split_sentences(p) or [""] for p in passages]
        flat = [s for group in sentences for s in group]
        if not passages:
            return np.zeros(0)
        vectors = self.encode([query, *flat])  # L2-normalised: a dot product is the cosine
        cosines = vectors[1:] @ vectors[0]
        bounds = np.cumsum([0] + [len(g) for g in sentences])
        return np.array(
            [
                cosines[a:b].max() if passages[i].strip() else 0.0
                for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True))
            ]
        )
