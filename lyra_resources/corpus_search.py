"""Whole papers of a local corpus ranked for a query by the same three stages as a task's
fragments (``text_ranking.rank_texts``), with BM25 from the corpus's own cached index (the one
the ``papers`` asset searches) and, since every paper is embedded once (through the home's
embedding cache), the papers nearest the query by embedding as candidates too. What
``lyra search`` prints and writes as TREC runs."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from lyra_core.ranking import RankingConfig
from lyra_core.validation import JsonTextError, load_json
from lyra_resources.corpus import LocalCorpus, document_text
from lyra_resources.local_models import LocalModels
from lyra_resources.models import Reranker
from lyra_resources.sentence_match import SentenceMatch
from lyra_resources.settings import RankingSettings
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
                                     "their stage-3 final score plus 1 plus the highest fused score possible")


def _value(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def paper_stage3(models: LocalModels, store: LyraStore, corpus: LocalCorpus, config: RankingConfig,
                 cfg: RankingSettings) -> tuple[Reranker | SentenceMatch | None, str, RankingConfig]:
    """Stage 3 of paper search as ``cfg.paper_stage3`` chooses it, the sentence saying which, and
    the ranking config with its depth and blend weight."""
    if cfg.paper_stage3 == "sentences":
        config = config.model_copy(update={"rerank_top_k": cfg.paper_rerank_top_k,
                                           "rerank_weight": cfg.paper_rerank_weight})
        return (SentenceMatch(models, store), f"best sentence of the top {cfg.paper_rerank_top_k}, weight "
                f"{cfg.paper_rerank_weight:g}", config)
    if cfg.paper_stage3 == "none":
        return None, "skipped: ranking.paper_stage3 is 'none'", config
    scorer, note = models.reranker_for(lambda: corpus.fingerprint)
    return scorer, note, config


class CorpusSearch:
    """Ranks one corpus's papers for query after query; their embedding texts are built once."""

    def __init__(self, corpus: LocalCorpus, *, store: LyraStore, models: LocalModels,
                 reranker: Reranker | SentenceMatch | None, config: RankingConfig) -> None:
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
        # fused can reach no higher than the weights' sum and a stage-3 score no lower than -1 (a cosine):
        # reranked papers score above every other, so a run's scores fall with its ranks
        offset = self.config.bm25_weight + self.config.embedding_weight + 1.0
        hits = []
        for i in ranked:
            rerank = _value(scores["rerank_score"][i])
            record = self.corpus.records[i]
            hits.append(Hit(rank=int(scores["final_rank"][i]), doc_id=record.source_id, title=record.title,
                            bm25=float(scores["bm25_score"][i]), embedding=_value(scores["embedding_score"][i]),
                            fused=_value(scores["fused_score"][i]), rerank=rerank,
                            score=offset + float(scores["final_score"][i]) if rerank is not None
                            else float(scores["fused_score"][i])))
        return hits


def read_queries(path: Path) -> list[tuple[str, str]]:
    """``(qid, text)`` per line of a BEIR-style ``{"_id", "text"}`` JSONL file; blank lines are
    skipped. Raises ValueError naming the first bad line by number."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"--queries {path}: cannot be read: {getattr(exc, 'strerror', None) or exc}") from None
    queries: list[tuple[str, str]] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"--queries {path} line {number}"
        try:
            item = load_json(line)
        except JsonTextError as exc:
            raise ValueError(f"{where}: {exc}; each line must be {{\"_id\": …, \"text\": …}}") from None
        if not isinstance(item, dict) or not isinstance(item.get("_id"), str | int) or isinstance(item["_id"], bool):
            raise ValueError(f"{where}: needs an \"_id\" (string or number)")
        qid, text = str(item["_id"]).strip(), " ".join(str(item.get("text") or "").split())
        if not qid or any(c.isspace() for c in qid):
            raise ValueError(f"{where}: \"_id\" {qid!r} must be non-empty and hold no spaces (a TREC run column)")
        if not isinstance(item.get("text"), str) or not text:
            raise ValueError(f"{where}: needs a non-empty \"text\"")
        if qid in seen:
            raise ValueError(f"{where}: duplicate \"_id\" {qid}")
        seen.add(qid)
        queries.append((qid, text))
    if not queries:
        raise ValueError(f"--queries {path}: holds no query")
    return queries
