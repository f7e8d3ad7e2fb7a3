"""Whole papers of a local corpus ranked for a query by the same three stages as a task's
fragments (``text_ranking.rank_texts``), with BM25 from the corpus's own cached index and the
papers nearest the query by embedding as candidates too, among every paper embedded so far in the
home's embedding cache (a question embeds its own BM25 best at once, the rest of the corpus is
embedded after its answer: ``corpus_vectors``). One ranking for both of its users: what ``lyra
search`` prints and writes as TREC runs, and the papers a task takes from a local corpus
(``RankedCorpusProvider``, the ``papers`` asset's local source)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from lyra_core.papers import PaperRecord
from lyra_core.ranking import RankingConfig
from lyra_core.validation import JsonTextError, load_json
from lyra_resources.corpus.corpus_vectors import CorpusVectors, EmbeddingStep
from lyra_resources.corpus.local_corpus import LocalCorpus, LocalCorpusProvider, document_text
from lyra_resources.models.inference import Reranker
from lyra_resources.models.local_models import LocalModels
from lyra_resources.models.sentence_match import SentenceMatch
from lyra_resources.models.text_ranking import rank_texts
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.settings.pipeline import RankingSettings
from lyra_resources.sources.providers import PaperProvider
from lyra_resources.store.lyra_store import LyraStore


class Hit(BaseModel):
    """One ranked paper with every stage's score (None where its stage did not reach it)."""

    rank: int = Field(ge=1)
    doc_id: str = Field(description="the corpus's own id: SciFact doc_id, BEIR _id, BibTeX key, …")
    title: str
    bm25: float
    embedding: float | None
    fused: float | None
    rerank: float | None
    score: float = Field(
        description="non-increasing with rank: the fused score, and for reranked papers "
        "their stage-3 final score plus 1 plus the highest fused score possible"
    )


def _value(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def paper_stage3(
    models: LocalModels, store: LyraStore, corpus: LocalCorpus, config: RankingConfig, cfg: RankingSettings
) -> tuple[Reranker | SentenceMatch | None, str, RankingConfig]:
    """Stage 3 of paper search as ``cfg.paper_stage3`` chooses it, the sentence saying which, and
    the ranking config with its depth and blend weight."""
    if cfg.paper_stage3 == "sentences":
        config = config.model_copy(
            update={"rerank_top_k": cfg.paper_rerank_top_k, "rerank_weight": cfg.paper_rerank_weight}
        )
        return (
            SentenceMatch(models, store),
            f"best sentence of the top {cfg.paper_rerank_top_k}, weight {cfg.paper_rerank_weight:g}",
            config,
        )
    if cfg.paper_stage3 == "none":
        return None, "skipped: ranking.paper_stage3 is 'none'", config
    scorer, note = models.reranker_for(lambda: corpus.fingerprint)
    return scorer, note, config


FIRST_QUESTION_PAPERS = RankingSettings.model_fields["first_question_papers"].default


class CorpusSearch:
    """Ranks one corpus's papers for query after query; their embedding texts are built once.
    ``on_embedding(step)`` hears what is about to be embedded and why, before it is; a question
    embeds at most its BM25 best ``first_papers`` (``ranking.first_question_papers``) that are not
    cached yet; ``stage3_note`` says what stage 3 is."""

    def __init__(
        self,
        corpus: LocalCorpus,
        *,
        store: LyraStore,
        models: LocalModels,
        reranker: Reranker | SentenceMatch | None,
        config: RankingConfig,
        on_embedding: Callable[[EmbeddingStep], None] | None = None,
        stage3_note: str = "",
        first_papers: int = FIRST_QUESTION_PAPERS,
    ) -> None:
        self.corpus, self.store, self.models, self.reranker, self.config = (
            corpus,
            store,
            models,
            reranker,
            config,
        )
        self.stage3_note = stage3_note
        self.texts = [document_text(r) for r in corpus.records]
        self.embeddings = CorpusVectors(
            self.texts, store=store, models=models, pool=first_papers, on_embedding=on_embedding
        )

    @cached_property
    def vectors(self) -> np.ndarray | None:
        """Every paper's embedding, those not cached yet embedded now (a bench's or a TREC run's
        whole corpus); None when ``dense_top_k`` is 0 and only BM25's candidates are embedded."""
        if not self.config.dense_top_k or not self.texts:
            return None
        return self.embeddings.everything()

    def scores(self, query: str) -> dict[str, np.ndarray]:
        """Every stage's score per record, as the shared ranking returns them: the nearest papers by
        embedding among those embedded (every one once ``vectors`` was read or the cache holds all)."""
        bm25 = self.corpus.bm25_scores(query)
        if "vectors" in self.__dict__ or not self.config.dense_top_k or not self.texts:
            vectors = self.vectors
        else:
            vectors = self.embeddings.for_question(bm25, self.config.bm25_top_k)
        return rank_texts(
            query,
            self.texts,
            bm25,
            store=self.store,
            models=self.models,
            reranker=self.reranker,
            config=self.config,
            vectors=vectors,
        )

    def search(self, query: str, top: int) -> list[Hit]:
        """The ``top`` best papers, best first, each with every stage's score."""
        return [hit for _, hit in self.ranked(query, top)]

    def ranked(self, query: str, top: int) -> list[tuple[int, Hit]]:
        """The ``top`` best papers, best first (BM25's and the embedding's candidates; the rest
        unranked), each as its record's index and its ``Hit``."""
        scores = self.scores(query)
        ranked = np.flatnonzero(scores["final_rank"] > 0)
        ranked = ranked[np.argsort(scores["final_rank"][ranked])][: max(top, 0)]
        # fused can reach no higher than the weights' sum and a stage-3 score no lower than -1 (a cosine):
        # reranked papers score above every other, so a run's scores fall with its ranks
        offset = self.config.bm25_weight + self.config.embedding_weight + 1.0
        hits = []
        for i in ranked:
            rerank = _value(scores["rerank_score"][i])
            record = self.corpus.records[i]
            hit = Hit(
                rank=int(scores["final_rank"][i]),
                doc_id=record.source_id,
                title=record.title,
                bm25=float(scores["bm25_score"][i]),
                embedding=_value(scores["embedding_score"][i]),
                fused=_value(scores["fused_score"][i]),
                rerank=rerank,
                score=offset + float(scores["final_score"][i])
                if rerank is not None
                else float(scores["fused_score"][i]),
            )
            hits.append((int(i), hit))
        return hits


def hybrid_search(
    corpus: LocalCorpus,
    *,
    store: LyraStore,
    models: LocalModels,
    settings: LyraSettings,
    on_embedding: Callable[[EmbeddingStep], None] | None = None,
) -> CorpusSearch:
    """The search ``lyra search`` runs over ``corpus`` by default: the settings' ranking with the
    paper stage 3 they choose (``paper_stage3``)."""
    reranker, note, config = paper_stage3(
        models, store, corpus, settings.ranking.ranking_config(), settings.ranking
    )
    return CorpusSearch(
        corpus,
        store=store,
        models=models,
        reranker=reranker,
        config=config,
        on_embedding=on_embedding,
        stage3_note=note,
        first_papers=settings.ranking.first_question_papers,
    )


# A paper that shares no word with the question joins a task only this close to it in meaning (cosine):
# the embedding's nearest papers are candidates however far they are, and in a small library they are
# all of it. On 200 SciFact train claims (bench.task_papers) no such paper among a task's 50 was under
# 0.289 and the one a claim cited was at 0.409, so the floor leaves those tasks as they were.
MEANING_ALONE_MIN_COSINE = 0.3


class RankedCorpusProvider(LocalCorpusProvider):
    """A local corpus as a task's paper source, its papers ranked by ``search`` (``lyra search``'s
    ranking) rather than by BM25 alone, so a paper that shares no word with the question but is
    close to it in meaning (``MEANING_ALONE_MIN_COSINE``) can be among the task's papers."""

    def __init__(self, search: CorpusSearch) -> None:
        super().__init__(search.corpus)
        self.ranking = search

    async def search(self, query: str, limit: int = 50) -> list[PaperRecord]:
        # run in the step's own thread, not a worker: the local corpus is searched before any live
        # source is asked, and the embedding bar names the asset whose step runs it
        ranked = self.ranking.ranked(query, len(self.corpus))
        kept = [
            (i, hit)
            for i, hit in ranked
            if hit.bm25 > 0 or (hit.embedding is not None and hit.embedding >= MEANING_ALONE_MIN_COSINE)
        ]
        return [
            self.corpus.records[i].model_copy(update={"score": hit.score}) for i, hit in kept[: max(limit, 0)]
        ]


def ranked_providers(
    providers: list[PaperProvider],
    *,
    store: LyraStore,
    models: LocalModels,
    settings: LyraSettings,
    on_embedding: Callable[[LocalCorpus, EmbeddingStep], None] | None = None,
) -> list[PaperProvider]:
    """``providers`` with each local corpus ranked as ``lyra search`` ranks it (``hybrid_search``);
    ``on_embedding(corpus, step)`` hears what of a corpus is about to be embedded, and why."""
    out: list[PaperProvider] = []
    for provider in providers:
        if not isinstance(provider, LocalCorpusProvider):
            out.append(provider)
            continue
        corpus = provider.corpus
        note = (lambda n, corpus=corpus: on_embedding(corpus, n)) if on_embedding else None
        out.append(
            RankedCorpusProvider(
                hybrid_search(corpus, store=store, models=models, settings=settings, on_embedding=note)
            )
        )
    return out


def read_queries(path: Path) -> list[tuple[str, str]]:
    """``(qid, text)`` per line of a BEIR-style ``{"_id", "text"}`` JSONL file; blank lines are
    skipped. Raises ValueError naming the first bad line by number."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"--queries {path}: cannot be read: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    queries: list[tuple[str, str]] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"--queries {path} line {number}"
        try:
            item = load_json(line)
        except JsonTextError as exc:
            raise ValueError(f'{where}: {exc}; each line must be {{"_id": …, "text": …}}') from None
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("_id"), str | int)
            or isinstance(item["_id"], bool)
        ):
            raise ValueError(f'{where}: needs an "_id" (string or number)')
        qid, text = str(item["_id"]).strip(), " ".join(str(item.get("text") or "").split())
        if not qid or any(c.isspace() for c in qid):
            raise ValueError(
                f'{where}: "_id" {qid!r} must be non-empty and hold no spaces (a TREC run column)'
            )
        if not isinstance(item.get("text"), str) or not text:
            raise ValueError(f'{where}: needs a non-empty "text"')
        if qid in seen:
            raise ValueError(f'{where}: duplicate "_id" {qid}')
        seen.add(qid)
        queries.append((qid, text))
    if not queries:
        raise ValueError(f"--queries {path}: holds no query")
    return queries
