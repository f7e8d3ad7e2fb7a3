"""Ranking benchmark on BEIR-SciFact (train split): BM25 alone, BM25 + embedding fusion, and the
full three stages, side by side in one run, with the throughput of each stage.

    .venv/bin/python -m bench.ranking [--queries N] [--reranker auto|none|PATH] [--rerank-top-k K]

Reference points (BEIR paper, full test split, which is not in ../shared): BM25 0.665,
BM25 + MiniLM MS-MARCO cross-encoder 0.688. Compare methods here side by side, not with those.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from bench.common import Stopwatch, ndcg_at_k, read_jsonl, read_qrels, recall_at_k, require_data
from lyra_core.ranking import RankingConfig, rank_candidates
from lyra_resources.corpus import LocalCorpus, document_text
from lyra_resources.models import PACKAGED_EMBEDDER, embedder, reranker, set_threads
from lyra_resources.settings import resolve_home
from lyra_resources.store import LyraStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=0, help="evaluate on a seeded sample of N queries (0 = all 809)")
    parser.add_argument("--reranker", default="auto", help="auto (the corpus-adapted one if trained), none, or a path")
    parser.add_argument("--rerank-top-k", type=int, default=30)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--home", default=None, help="Lyra home for caches (default ./.lyra)")
    args = parser.parse_args()
    set_threads(args.threads)

    beir = require_data("scifact", "beir")
    home = resolve_home(args.home)
    corpus = LocalCorpus.open(beir / "corpus.jsonl", cache_dir=home / "cache" / "corpus")
    queries = read_jsonl(beir / "queries_train.jsonl")
    qrels = read_qrels(beir / "qrels" / "train.tsv")
    queries = [q for q in queries if q["_id"] in qrels]
    if args.queries:
        queries = random.Random(13).sample(queries, min(args.queries, len(queries)))
    doc_ids = [r.source_id for r in corpus.records]
    texts = [document_text(r) for r in corpus.records]
    print(f"BEIR-SciFact train: {len(corpus)} documents, {len(queries)} queries with qrels")

    watch = Stopwatch()
    model = embedder(PACKAGED_EMBEDDER)
    model.encode(["warm-up"])
    sample = texts[:256]
    with watch.time("embedding", len(sample)):
        model.encode(sample)
    store = LyraStore.at(home)
    started = time.perf_counter()
    doc_vectors = store.cached_embeddings(PACKAGED_EMBEDDER, texts, model.encode)
    print(f"document embeddings ready in {time.perf_counter() - started:.1f}s (cached in {store.layout.database})")

    rerank_model, rerank_name = None, "none"
    if args.reranker == "auto":
        candidate = home / "models" / "rerankers" / corpus.fingerprint
        if (candidate / "config.json").exists():
            rerank_model, rerank_name = reranker(candidate), f"corpus-adapted ({candidate.name})"
    elif args.reranker != "none":
        rerank_model, rerank_name = reranker(args.reranker), args.reranker
    config = RankingConfig(rerank_top_k=args.rerank_top_k if rerank_model else 0)

    results: dict[str, list[tuple[float, float]]] = {"BM25": [], "BM25 + embedding": [], "three stages": []}
    for query in queries:
        relevant = {doc: rel for doc, rel in qrels[query["_id"]].items()}
        with watch.time("bm25", len(texts)):
            bm25 = corpus.bm25_scores(query["text"])
        with watch.time("query embedding", 1):
            qvec = model.encode([query["text"]])[0]

        def rerank_docs(indices, text=query["text"]):
            with watch.time("reranker", len(indices)):
                return rerank_model.score(text, [texts[i] for i in indices])

        with watch.time("fusion", config.bm25_top_k):
            scores = rank_candidates(bm25, qvec, lambda idx: doc_vectors[idx],
                                     rerank_docs if rerank_model else None, config)
        stage1 = [doc_ids[i] for i in np.lexsort((np.arange(len(bm25)), -bm25))[:100]]
        reached = np.flatnonzero(scores["stage"] >= 2)
        stage2 = [doc_ids[i] for i in reached[np.lexsort((reached, -scores["fused_score"][reached]))]]
        final = [doc_ids[i] for i in reached[np.argsort(scores["final_rank"][reached])]]
        for name, ranked in (("BM25", stage1), ("BM25 + embedding", stage2), ("three stages", final)):
            results[name].append((ndcg_at_k(ranked, relevant, 10), recall_at_k(ranked, relevant, 100)))

    print()
    print(f"{'method':<20} {'nDCG@10':>8} {'Recall@100':>11}   vs BM25")
    base = np.mean([r[0] for r in results["BM25"]])
    for name, rows in results.items():
        if name == "three stages" and rerank_model is None:
            print(f"{name:<20} {'—':>8} {'—':>11}   reranker: none available (train one: lyra models train-reranker)")
            continue
        ndcg, recall = np.mean([r[0] for r in rows]), np.mean([r[1] for r in rows])
        print(f"{name:<20} {ndcg:8.4f} {recall:11.4f}   ×{ndcg / base:.3f}")
    print()
    print("throughput (2 cores unless --threads says otherwise):")
    print(f"  stage 1 BM25:        {watch.rate('bm25'):>12,.0f} docs/s scored")
    print(f"  stage 2 embedding:   {watch.rate('embedding'):>12,.1f} docs/s embedded (cold), "
          f"{watch.rate('query embedding'):.1f} queries/s")
    if rerank_model:
        print(f"  stage 3 reranker:    {watch.rate('reranker'):>12,.1f} docs/s ({rerank_name}, top {config.rerank_top_k})")
    print(f"  recall@100 is the same for BM25 and fusion by construction: fusion reorders BM25's top {config.bm25_top_k}")


if __name__ == "__main__":
    main()
