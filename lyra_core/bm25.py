"""BM25 scoring shared by the corpus search and the fragment ranking."""

from __future__ import annotations

import math

import numpy as np
from rank_bm25 import BM25Okapi


class Bm25Index(BM25Okapi):  # type: ignore[misc]  # rank_bm25 ships no type information
    """BM25Okapi with Lucene's always-positive idf and scoring from a postings index.

    Okapi's idf is zero or negative for a term in half or more of the documents, so in a tiny
    corpus (one or two papers) nothing would ever match. rank_bm25 scores a query by looking
    every query term up in every document's dict (a long query over SciFact: ~200 ms); postings
    (term → documents, term frequencies) give the same scores touching only matching documents.
    The per-document dicts are dropped once the postings exist: they are most of the cache.
    """

    def __init__(self, corpus: list[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        super().__init__(corpus, k1=k1, b=b)
        self._vocab = {term: col for col, term in enumerate(self.idf)}
        cols: list[int] = []
        docs: list[int] = []
        tfs: list[int] = []
        for doc, freqs in enumerate(self.doc_freqs):
            for term, tf in freqs.items():
                cols.append(self._vocab[term])
                docs.append(doc)
                tfs.append(tf)
        col_arr = np.asarray(cols, dtype=np.int64)
        by_term = np.argsort(col_arr, kind="stable")  # stable: documents stay in order per term
        self._docs = np.asarray(docs, dtype=np.int32)[by_term]
        self._tfs = np.asarray(tfs, dtype=np.float64)[by_term]
        self._indptr = np.concatenate(([0], np.cumsum(np.bincount(col_arr, minlength=len(self._vocab)))))
        self._norm = self.k1 * (1 - self.b + self.b * np.asarray(self.doc_len, dtype=np.float64) / self.avgdl)
        self.doc_freqs: list[dict[str, int]] = []

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))
        self.average_idf = sum(self.idf.values()) / len(self.idf) if self.idf else 0.0

    def get_scores(self, query: list[str]) -> np.ndarray:
        scores = np.zeros(self.corpus_size)
        for term in query:  # a repeated term counts again, as in rank_bm25
            col = self._vocab.get(term)
            if col is None:
                continue
            lo, hi = self._indptr[col], self._indptr[col + 1]
            docs, tf = self._docs[lo:hi], self._tfs[lo:hi]
            scores[docs] += self.idf[term] * tf * (self.k1 + 1) / (tf + self._norm[docs])
        return scores

    def get_batch_scores(self, query: list[str], doc_ids: list[int]) -> list[float]:
        scores: list[float] = self.get_scores(query)[doc_ids].tolist()
        return scores
