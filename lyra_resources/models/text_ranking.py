"""The three-stage ranking of texts for one query, as the ``fragment_ranking`` asset and
``lyra search`` both run it: BM25 scores given by the caller, embeddings of the BM25 survivors
through the Lyra home's embedding cache, the configured reranker when there is one
(``lyra_core.ranking.rank_candidates`` does the arithmetic)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lyra_core.bm25 import Bm25Index
from lyra_core.ranking import RankingConfig, cosine, rank_candidates
from lyra_core.text import index_terms
from lyra_resources.models.inference import Reranker
from lyra_resources.models.local_models import LocalModels
from lyra_resources.store.lyra_store import LyraStore


def bm25_scores(query: str, texts: Sequence[str]) -> np.ndarray:
    """BM25 of ``query`` against an index built over ``texts`` alone (all zero when either has no token)."""
    tokens = [index_terms(t) for t in texts]
    query_tokens = index_terms(query)
    if not (any(tokens) and query_tokens):  # rank_bm25 divides by the corpus size and the token count
        return np.zeros(len(texts))
    return np.asarray(Bm25Index(tokens).get_scores(query_tokens), dtype=float)


def rank_texts(
    query: str,
    texts: Sequence[str],
    bm25: np.ndarray,
    *,
    store: LyraStore,
    models: LocalModels,
    reranker: Reranker | None,
    config: RankingConfig,
    trust: np.ndarray | None = None,
    vectors: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Every stage's score for each of ``texts`` (aligned with them), given their BM25 scores.

    With ``vectors`` (every text's embedding, e.g. a whole corpus's) the nearest texts join BM25's
    candidates. Without, only the BM25 top-k are embedded, their vectors read from / written to the
    store's embedding cache, so ranking the same texts again embeds nothing. ``reranker`` None skips
    stage 3.
    """
    encode = models.cached_encoder(store)
    query_vector = encode([query])[0]
    dense = cosine(query_vector, vectors) if vectors is not None else None

    def embed_docs(indices: np.ndarray) -> np.ndarray:
        return encode([texts[i] for i in indices])

    def rerank_docs(indices: np.ndarray) -> np.ndarray:
        return reranker.score(query, [texts[i] for i in indices])

    return rank_candidates(
        bm25, query_vector, embed_docs, rerank_docs if reranker else None, config, trust=trust, dense=dense
    )
