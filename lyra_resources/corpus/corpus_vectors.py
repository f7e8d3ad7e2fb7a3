"""A local corpus's paper embeddings as a question needs them, so that the first question of a new
library does not wait for the whole library to be embedded (docs/pipeline.md, step 6).

A question embeds at once only the papers it can rank: BM25's best ``pool`` (every paper of a
corpus no larger than that); its nearest-by-meaning candidates come from every paper embedded so
far (``rank_candidates`` takes NaN for the others). The rest of the corpus is embedded after the
answer, chunk by chunk (``embed_rest``: `lyra corpus embed`, which a task starts in the
background), its vectors kept in memory and written ``CHUNK`` papers at a time in one short
transaction, so a process stopped midway loses at most that many and the next picks up the
remainder. Each transaction holds the DuckDB file for a moment (opening it, an insert, the
checkpoint on closing it: about 0.15 s, whatever the number of rows), and no other process can
open the file meanwhile, even read-only: written once per ``CHUNK`` papers rather than once per
chunk, the file is free all but a fraction of a percent of the time. Once every paper is embedded,
a question ranks exactly as over the whole corpus.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pydantic import BaseModel, Field

from lyra_core.ranking import words_best
from lyra_resources.models.content_cache import cached_embedding_rows, cached_embeddings, store_embeddings
from lyra_resources.models.local_models import LocalModels
from lyra_resources.store.lyra_store import LyraStore

# Papers written per transaction by ``embed_rest``: about 40 s of the embedder on 2 cores, the most
# a stopped process loses.
CHUNK = 256


class EmbeddingStep(BaseModel):
    """What is about to be embedded and why, for the progress line (``line``)."""

    embedding: int = Field(ge=0, description="papers embedded now")
    papers: int = Field(ge=0, description="papers in the corpus")
    remaining: int = Field(ge=0, description="papers still not embedded after this step")
    reason: str = Field(description="'question': the question's best papers by words; 'corpus': the rest")

    def line(self, where: str) -> str:
        """One progress line, e.g. for ``papers``' log or `lyra corpus embed`."""
        if self.reason == "question" and self.remaining:
            return (
                f"embedding {self.embedding:,} of the {self.papers:,} papers of corpus {where}: the question's "
                f"best by words, so its answer does not wait for the whole corpus (the other {self.remaining:,} "
                "are embedded later: `lyra corpus embed`, which a task starts in the background)"
            )
        if self.reason == "question":
            return (
                f"embedding {self.embedding:,} papers of corpus {where} (once per home: later tasks and "
                "`lyra search` read them from the cache)"
            )
        return (
            f"embedding {self.embedding:,} papers of corpus {where} ({self.remaining:,} left after these), so "
            "later questions find papers by meaning alone (stopping is safe: the next run goes on)"
        )


class CorpusVectors:
    """The embeddings of one corpus's texts by ``models``' embedder, read from and written to the
    home's embedding cache under the embedder's encoding key (``LocalModels.embedding_key``)."""

    def __init__(
        self,
        texts: list[str],
        *,
        store: LyraStore,
        models: LocalModels,
        pool: int,
        on_embedding: Callable[[EmbeddingStep], None] | None = None,
    ) -> None:
        self.texts, self.store, self.models, self.pool = texts, store, models, pool
        self.on_embedding = on_embedding
        self._known: np.ndarray | None = None  # one row per text, NaN where not embedded yet
        self._unstored: list[np.ndarray] = []  # indices embedded by ``embed_rest``, not yet in the cache

    def _encode(self, texts: list[str]) -> np.ndarray:
        return self.models.embedder().encode(texts)

    def known(self) -> np.ndarray | None:
        """Every text's vector as far as the cache holds it (NaN rows for the others); None while none is."""
        if self._known is None:
            indices, vectors = cached_embedding_rows(self.store, self.models.embedding_key, self.texts)
            if not indices.size:
                return None
            self._known = np.full((len(self.texts), vectors.shape[1]), np.nan, dtype=np.float32)
            self._known[indices] = vectors
        return self._known

    def missing(self) -> np.ndarray:
        """Indices of the texts not embedded yet."""
        known = self.known()
        return np.arange(len(self.texts)) if known is None else np.flatnonzero(np.isnan(known[:, 0]))

    def _embed(self, indices: np.ndarray, reason: str) -> None:
        if not indices.size:
            return
        left = self.missing().size - indices.size
        if self.on_embedding:
            self.on_embedding(
                EmbeddingStep(
                    embedding=int(indices.size), papers=len(self.texts), remaining=max(left, 0), reason=reason
                )
            )
        vectors = cached_embeddings(
            self.store, self.models.embedding_key, [self.texts[i] for i in indices], self._encode
        )
        if self._known is None:
            self._known = np.full((len(self.texts), vectors.shape[1]), np.nan, dtype=np.float32)
        self._known[indices] = vectors

    def for_question(self, bm25: np.ndarray, keep: int) -> np.ndarray | None:
        """The vectors a question ranks with: its BM25 best ``max(pool, keep)`` embedded now if they
        are not yet (every paper of a corpus no larger), beside every paper embedded before."""
        missing = self.missing()
        if missing.size:
            if len(self.texts) <= max(self.pool, keep):
                wanted = missing
            else:
                wanted = np.intersect1d(words_best(bm25, max(self.pool, keep)), missing)
            self._embed(wanted, "question")
        return self.known()

    def everything(self) -> np.ndarray:
        """Every text's vector, the ones not cached yet embedded now in one go."""
        self._embed(self.missing(), "question")
        known = self.known()
        return known if known is not None else np.zeros((0, 0), dtype=np.float32)

    def embed_rest(
        self, chunk: int = CHUNK, before_chunk: Callable[[], object] | None = None, write_every: int = CHUNK
    ) -> int:
        """Embed every text not embedded yet, ``chunk`` at a time (``before_chunk`` called before
        each: the background's wait for idle), the vectors stored ``write_every`` papers (or the
        chunks that reach it) at a time in one transaction, and what is left at the end; returns how
        many were embedded. What another process stored meanwhile is kept (``store_embeddings``)."""
        missing = self.missing()
        for start in range(0, missing.size, chunk):
            if before_chunk:
                before_chunk()
            part = missing[start : start + chunk]
            if self.on_embedding:
                left = int(missing.size - start - part.size)
                self.on_embedding(
                    EmbeddingStep(
                        embedding=int(part.size), papers=len(self.texts), remaining=left, reason="corpus"
                    )
                )
            vectors = np.asarray(self._encode([self.texts[i] for i in part]), dtype=np.float32)
            if self._known is None:
                self._known = np.full((len(self.texts), vectors.shape[1]), np.nan, dtype=np.float32)
            self._known[part] = vectors
            self._unstored.append(part)
            if sum(indices.size for indices in self._unstored) >= write_every:
                self.flush()
        self.flush()
        return int(missing.size)

    def flush(self) -> None:
        """Store what ``embed_rest`` embedded and has not stored yet, in one short transaction (before
        the background embedder waits for a task, so the task finds those papers embedded)."""
        if self._unstored and self._known is not None:
            indices = np.concatenate(self._unstored)
            store_embeddings(
                self.store, self.models.embedding_key, [self.texts[i] for i in indices], self._known[indices]
            )
        self._unstored = []
