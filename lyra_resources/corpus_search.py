"""Whole papers of a local corpus ranked for a query by the same three stages as a task's
fragments (``text_ranking.rank_texts``), with BM25 from the corpus's own cached index (the one
the ``papers`` asset searches) and, since every paper is embedded once (through the home's
embedding cache), the papers nearest the query by embedding as candidates too. What
``lyra search`` prints and writes as TREC runs."""

from __future__ import annotations

from functools import cached_property

import numpy as np
from pydantic import BaseModel, Field

from lyra_core.ranking import RankingConfig
from lyra_resources.corpus import LocalCorpus, document_text
from lyra_resources.models import LocalModels, Reranker
from lyra_resources.store import LyraStore
from lyra_resources.text_ranking import rank_texts


class Hit(BaseModel):
    """One ranked paper with every stage's score (None where its stage did not reach it)."""

    rank: int = Field(ge=1)
    doc_id: str = Field(description="the corpus's own id: SciFact doc_id, BEIR _id, BibTeX key, …")
    title: str
    bm25: float
    embedding: float | None
    fused: float | None
    rerank: float | None
    score: float = Field(description="non-increasing with rank: the fused score, and for reranked papers "
                                     "their reranker score plus the highest fused score possible (1 by default)")


def _value(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


class CorpusSearch:
    """Ranks one corpus's papers for query after query; their embedding texts are built once."""

    def __init__(self, corpus: LocalCorpus, *, store: LyraStore, models: LocalModels,
                 reranker: Reranker | None, config: RankingConfig) -> None:
        self.corpus, self.store, self.models, self.reranker, self.config = corpus, store, models, reranker, config
        self.texts = [document_text(r) for r in corpus.records]

    @cached_property
    def vectors(self) -> np.ndarray | None:
        """Every paper's embedding (computed once per corpus and model, then read from the cache);
        None when ``dense_top_k`` is 0 and only BM25's candidates are embedded."""
        if not self.config.dense_top_k or not self.texts:
            return None
        return np.asarray(self.models.cached_encoder(self.store)(self.texts))

    def scores(self, query: str) -> dict[str, np.ndarray]:
        """Every stage's score per record, as the shared ranking returns them."""
        return rank_texts(query, self.texts, self.corpus.bm25_scores(query), store=self.store, models=self.models,
                          reranker=self.reranker, config=self.config, vectors=self.vectors)

    def search(self, query: str, top: int) -> list[Hit]:
        """The ``top`` best papers, best first (BM25's and the embedding's candidates; the rest unranked)."""
        scores = self.scores(query)
        ranked = np.flatnonzero(scores["final_rank"] > 0)
        ranked = ranked[np.argsort(scores["final_rank"][ranked])][:top]
        ceiling = self.config.bm25_weight + self.config.embedding_weight  # fused can reach no higher
        hits = []
        for i in ranked:
            rerank = _value(scores["rerank_score"][i])
            record = self.corpus.records[i]
            hits.append(Hit(rank=int(scores["final_rank"][i]), doc_id=record.source_id, title=record.title,
                            bm25=float(scores["bm25_score"][i]), embedding=_value(scores["embedding_score"][i]),
                            fused=_value(scores["fused_score"][i]), rerank=rerank,
                            score=ceiling + rerank if rerank is not None else float(scores["fused_score"][i])))
        return hits
