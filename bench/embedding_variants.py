"""Cheaper paper embeddings on a CPU: encodings and batch sizes side by side, in one run, on one
fixed subsample of BEIR-SciFact (train split).

    .venv/bin/python -m bench.embedding_variants [--queries 100] [--docs 600] [--seed 13] [--threads 2]

The sample: ``--queries`` train queries with judgements (seeded) and a corpus of their relevant
papers plus seeded others, ``--docs`` in all. Every variant embeds the same papers (nothing is
read from or written to a cache) and is scored on the same queries: docs/s, CPU ms per paper (all
of the process's threads: on a shared machine the figure to compare), nDCG@10 of the dense
ranking alone and of the hybrid (BM25 over the sample's index terms, its top 100 and the dense
top 100 fused as ``lyra search`` fuses them), each beside the model's own encoding (fp32, 256 tokens,
batches of 32, today's). A variant is worth shipping when it is faster and loses at most 0.005
nDCG@10. The queries are embedded in the variant's own encoding, as a task would.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.common import ndcg_at_k, read_jsonl, read_qrels, require_data
from lyra_core.bm25 import Bm25Index
from lyra_core.ranking import RankingConfig, cosine, rank_candidates, top_k
from lyra_core.text import index_terms
from lyra_resources.corpus.local_corpus import LocalCorpus, document_text
from lyra_resources.models.inference import Embedder, set_threads
from lyra_resources.models.model_files import EmbeddingEncoding

VARIANTS = [  # (name, precision, max tokens, batch size)
    ("fp32, 256 tok, batch 32", "fp32", None, 32),
    ("fp32, 256 tok, batch 16", "fp32", None, 16),
    ("fp32, 256 tok, batch 64", "fp32", None, 64),
    ("fp32, 128 tok, batch 32", "fp32", 128, 32),
    ("int8, 256 tok, batch 32", "int8", None, 32),
    ("int8, 128 tok, batch 32", "int8", 128, 32),
]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--docs", type=int, default=600)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    set_threads(args.threads)

    beir = require_data("scifact", "beir")
    qrels = read_qrels(beir / "qrels" / "train.tsv")
    queries = random.Random(args.seed).sample(
        [q for q in read_jsonl(beir / "queries_train.jsonl") if q["_id"] in qrels], args.queries
    )
    corpus = LocalCorpus.open(beir / "corpus.jsonl", cache_dir=Path(tempfile.mkdtemp()))
    docs = {r.source_id: r for r in corpus.records}  # embedded as a task embeds them (document_text)
    relevant = sorted({doc for q in queries for doc in qrels[q["_id"]] if doc in docs})
    others = random.Random(args.seed).sample(
        sorted(set(docs) - set(relevant)), max(args.docs - len(relevant), 0)
    )
    doc_ids = relevant + others
    texts = [document_text(docs[d]) for d in doc_ids]
    bm25_index = Bm25Index([index_terms(t) for t in texts])
    print(
        f"BEIR-SciFact train sample (seed {args.seed}): {len(queries)} queries, {len(texts)} papers "
        f"({len(relevant)} relevant to them); threads {args.threads}"
    )
    config = RankingConfig()
    base: tuple[float, float, float] | None = None
    print(
        f"{'variant':<26} {'docs/s':>8} {'speed':>7} {'CPU ms/doc':>11} {'dense nDCG@10':>14} {'hybrid nDCG@10':>15}"
    )
    for name, precision, max_tokens, batch in VARIANTS:
        embedder = Embedder(
            batch_size=batch, encoding=EmbeddingEncoding(precision=precision, max_tokens=max_tokens)
        )
        embedder.encode(texts[:batch])  # load and warm up
        started, cpu_started = time.perf_counter(), time.process_time()
        vectors = embedder.encode(texts)
        rate = len(texts) / (time.perf_counter() - started)
        cpu_ms = 1000 * (time.process_time() - cpu_started) / len(texts)
        dense_ndcg, hybrid_ndcg = [], []
        for q in queries:
            qvec = embedder.encode([q["text"]])[0]
            dense = cosine(qvec, vectors)
            dense_ndcg.append(ndcg_at_k([doc_ids[i] for i in top_k(dense, 10)], qrels[q["_id"]], 10))
            bm25 = np.asarray(bm25_index.get_scores(index_terms(q["text"])), dtype=float)
            scores = rank_candidates(
                bm25, qvec, lambda idx, vectors=vectors: vectors[idx], None, config, dense=dense
            )
            reached = np.flatnonzero(scores["final_rank"] > 0)
            ranked = reached[np.argsort(scores["final_rank"][reached])]
            hybrid_ndcg.append(ndcg_at_k([doc_ids[i] for i in ranked], qrels[q["_id"]], 10))
        row = (rate, float(np.mean(dense_ndcg)), float(np.mean(hybrid_ndcg)))
        base = base or row
        print(
            f"{name:<26} {rate:8.1f} {rate / base[0]:6.2f}× {cpu_ms:11.1f} {row[1]:8.4f} ({row[1] - base[1]:+.4f}) "
            f"{row[2]:8.4f} ({row[2] - base[2]:+.4f})",
            flush=True,
        )


if __name__ == "__main__":
    main()
