"""The three-stage ranking (docs/pipeline.md, step 6), as pure functions over score arrays.

Stage 1: BM25 over every candidate, keep the top ``bm25_top_k``; where the query's cosine to the
         candidates is known (a corpus's cached embeddings), the ``dense_top_k`` nearest of those
         join them, so a paper that shares no word with the query can still be found.
Stage 2: cosine similarity of query and candidate embeddings; fused = 0.3·BM25 + 0.7·embedding,
         with BM25 min-max normalised per query (raw BM25 is unbounded and query-dependent).
Stage 3: a scorer (a cross-encoder, or the best-matching sentence) scores the best ``rerank_top_k``
         fused candidates; the final order there is by ``rerank_weight``·stage 3 + the rest·fused,
         and by fused score below.
Every stage's score is kept so the ranking can be explained.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from pydantic import BaseModel, Field

BM25_WEIGHT = 0.3
EMBEDDING_WEIGHT = 0.7


class RankingConfig(BaseModel):
    bm25_top_k: int = Field(100, ge=1)
    dense_top_k: int = Field(
        100,
        ge=0,
        description="nearest candidates by embedding added to stage 1 when "
        "every candidate's cosine is given; 0 = BM25 alone",
    )
    rerank_top_k: int = Field(30, ge=0, description="0 skips stage 3")
    rerank_weight: float = Field(
        1.0,
        ge=0,
        le=1,
        description="share of the stage-3 score in a reranked "
        "candidate's final score; the rest is its fused score",
    )
    bm25_weight: float = Field(BM25_WEIGHT, ge=0, le=1)
    embedding_weight: float = Field(EMBEDDING_WEIGHT, ge=0, le=1)


def minmax(scores: np.ndarray) -> np.ndarray:
    """Scale to [0, 1] within one query; constant scores all become 1 (nothing to tell apart)."""
    scores = np.asarray(scores, dtype=float)
    if scores.size == 0:
        return scores
    low, high = float(scores.min()), float(scores.max())
    if high - low < 1e-12:
        return np.ones_like(scores)
    return (scores - low) / (high - low)


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k best scores, best first, ties by index (stable and reproducible)."""
    scores = np.asarray(scores, dtype=float)
    order = np.lexsort((np.arange(scores.size), -scores))
    return order[: max(k, 0)]


def words_best(bm25_scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` best BM25 scores above 0, best first: the papers a question of a corpus
    not wholly embedded yet embeds at once (its nearest by embedding are sought among them and the
    papers embedded before)."""
    scores = np.asarray(bm25_scores, dtype=float)
    positive = np.flatnonzero(scores > 0)
    best: np.ndarray = positive[top_k(scores[positive], k)]
    return best


def fuse(bm25_norm: np.ndarray, embedding: np.ndarray, config: RankingConfig | None = None) -> np.ndarray:
    config = config or RankingConfig()
    return config.bm25_weight * np.asarray(bm25_norm) + config.embedding_weight * np.asarray(embedding)


def cosine(query: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Cosine similarity of one query vector with each row of ``docs``."""
    q = query / (np.linalg.norm(query) or 1.0)
    norms = np.linalg.norm(docs, axis=1)
    norms[norms == 0] = 1.0
    similarity: np.ndarray = (docs @ q) / norms
    return similarity


def final_order(
    fused: np.ndarray, rerank: Sequence[float | None], trust: np.ndarray | None = None
) -> np.ndarray:
    """Final order of stage-2 candidates: reranked ones first (by reranker score), then the rest by
    fused score. ``trust`` multiplies the scores it orders by (domain trust weights; 1 = neutral)."""
    fused = np.asarray(fused, dtype=float)
    weight = np.ones_like(fused) if trust is None else np.asarray(trust, dtype=float)
    has_rerank = np.array([r is not None for r in rerank], dtype=bool)
    rerank_arr = np.array([r if r is not None else 0.0 for r in rerank], dtype=float)
    # sort keys: reranked first, then the relevant score (desc), then index for stability
    primary = np.where(has_rerank, rerank_arr * weight, fused * weight)
    order: np.ndarray = np.lexsort((np.arange(fused.size), -primary, ~has_rerank))
    return order


def rank_candidates(
    bm25_scores: np.ndarray,
    query_vector: np.ndarray,
    embed_docs: Callable[[np.ndarray], np.ndarray],
    rerank_docs: Callable[[np.ndarray], np.ndarray] | None = None,
    config: RankingConfig | None = None,
    trust: np.ndarray | None = None,
    dense: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Run the three stages over candidates whose BM25 scores are given.

    ``embed_docs(indices) -> matrix`` embeds the chosen candidates (stage 2 only embeds the BM25
    top-k); ``rerank_docs(indices) -> probabilities`` scores candidates with the cross-encoder,
    or is None to skip stage 3. ``dense``, the query's cosine to each candidate (NaN where a
    candidate's embedding is not known yet), adds the ``dense_top_k`` nearest known ones to stage 1
    and is the embedding score of every known one; ``embed_docs`` embeds the others BM25 keeps. Returns one array per
    score column, aligned with the candidates;
    candidates a stage did not reach hold NaN there, and ``final_rank`` is 0 for candidates
    outside the BM25 top-k.
    """
    config = config or RankingConfig()
    n = len(bm25_scores)
    nan = np.full(n, np.nan)
    out = {
        "bm25_score": np.asarray(bm25_scores, dtype=float),
        "bm25_norm": nan.copy(),
        "embedding_score": nan.copy(),
        "fused_score": nan.copy(),
        "rerank_score": nan.copy(),
        "trust_weight": np.ones(n) if trust is None else np.asarray(trust, dtype=float),
        "final_score": nan.copy(),
        "final_rank": np.zeros(n, dtype=int),
        "stage": np.zeros(n, dtype=int),
    }
    positive = np.flatnonzero(out["bm25_score"] > 0)
    stage1 = positive[top_k(out["bm25_score"][positive], config.bm25_top_k)]
    known = np.zeros(n, dtype=bool) if dense is None else ~np.isnan(np.asarray(dense, dtype=float))
    if dense is not None and config.dense_top_k > 0 and known.any():
        nearest = np.flatnonzero(known)
        stage1 = np.union1d(
            stage1, nearest[top_k(np.asarray(dense, dtype=float)[nearest], config.dense_top_k)]
        )
    if stage1.size == 0:
        return out
    out["stage"][stage1] = 1
    out["bm25_norm"][stage1] = minmax(out["bm25_score"][stage1])
    if dense is not None:
        out["embedding_score"][stage1] = np.asarray(dense, dtype=float)[stage1]
    unknown = stage1[~known[stage1]]
    if unknown.size:
        out["embedding_score"][unknown] = cosine(query_vector, np.asarray(embed_docs(unknown)))
    out["fused_score"][stage1] = fuse(out["bm25_norm"][stage1], out["embedding_score"][stage1], config)
    out["stage"][stage1] = 2
    rerank: list[float | None] = [None] * stage1.size
    if rerank_docs is not None and config.rerank_top_k > 0:
        weighted = out["fused_score"][stage1] * out["trust_weight"][stage1]
        chosen = top_k(weighted, config.rerank_top_k)
        scores = np.asarray(rerank_docs(stage1[chosen]), dtype=float)
        out["rerank_score"][stage1[chosen]] = scores
        out["stage"][stage1[chosen]] = 3
        blended = (
            config.rerank_weight * scores + (1 - config.rerank_weight) * out["fused_score"][stage1[chosen]]
        )
        for pos, score in zip(chosen, blended, strict=True):
            rerank[pos] = float(score)
    order = final_order(out["fused_score"][stage1], rerank, out["trust_weight"][stage1])
    for rank, pos in enumerate(order, start=1):
        idx = stage1[pos]
        out["final_rank"][idx] = rank
        base = rerank[pos] if rerank[pos] is not None else out["fused_score"][idx]
        out["final_score"][idx] = base * out["trust_weight"][idx]
    return out
