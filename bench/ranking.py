"""Ranking benchmark on BEIR-SciFact (train split): every stage side by side in one run,
cross-validated by query, with each stage's speed.

    .venv/bin/python -m bench.ranking [--folds 2] [--queries N] [--reranker] [--rerank-top-k 30] [--rerun |
    --rerun-only] [--home H]

Quality: the 809 train queries with judgements are split into ``--folds`` folds by query (seeded).
Nothing is tuned here: BM25, the embedder and the fusion are fixed; the reranker of each fold is
trained on the *other* folds' queries only (``lyra_training.reranker``, hard negatives from
the hybrid stage 2 of those queries) and scores its own fold, so every figure is on queries its
models never saw. Rows, each with its ratio to BM25 (today's shipped stage 1):

- BM25 on plain words (no stemming, one-letter tokens dropped: Lyra's stage 1 before this bench)
- BM25 on index terms (scientific tokens, Snowball-stemmed: the shipped stage 1)
- dense: cosine of all-MiniLM-L6-v2 embeddings over the whole corpus
- fusion of BM25's top 100 alone (0.3·BM25 + 0.7·cosine; Recall@100 capped by BM25)
- hybrid: BM25's and the dense top 100 together, fused the same way (the shipped stage 2)
- hybrid, first question: the same as a new library's first question ranks, its dense top 100
  sought only among its BM25 best ``ranking.first_question_papers`` (the papers it embeds at once)
- + best sentence: stage 3 as ``lyra search`` ships it — each of the hybrid's top 20 papers scored
  by its best-matching sentence's cosine, blended half and half with the fused score. Its depth
  and weight were chosen on fold 0 of the default split (2 folds, seed 18): fold 1 is held out.
- + reranker (cross-validated, with ``--reranker``): stage 3 on the hybrid's top ``--rerank-top-k``

Speed, on this machine: corpus embedding docs/s through Lyra's cache against the model's own
peak (sorted batches straight into the model, no cache); query latency p50/p95 per stage;
``--rerun``: a first ``lyra run`` of a 100-paper task in a fresh home, an unchanged re-run (skipped: nothing it
reads changed) and a forced one (``--force``: every asset again); ``--rerun-only`` times only those.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import time
from pathlib import Path

import numpy as np

from bench.common import ndcg_at_k, read_jsonl, read_qrels, recall_at_k, require_data
from bench.ranking_speed import embedding_throughput, latency_line, rerun_timing
from lyra_core.bm25 import Bm25Index
from lyra_core.ranking import RankingConfig, cosine, rank_candidates, top_k, words_best
from lyra_core.text import tokenize
from lyra_resources.corpus.local_corpus import LocalCorpus, document_text
from lyra_resources.corpus.search import CorpusSearch, paper_stage3
from lyra_resources.home import resolve_home
from lyra_resources.models.inference import Reranker, set_threads
from lyra_resources.models.local_models import LocalModels
from lyra_resources.models.model_files import packaged_embedder_dir
from lyra_resources.settings.loading import load_settings
from lyra_resources.store.lyra_store import LyraStore
from lyra_training.reranker import train_labelled_reranker

FOLD_SEED = 18
NEGATIVES = 7
SHIPPED = "+ best sentence"
FIRST = "hybrid, first question"
METHODS = [
    "BM25, plain words",
    "BM25, index terms",
    "dense",
    "fusion, BM25 top 100",
    "hybrid fusion",
    FIRST,
    SHIPPED,
    "+ reranker (CV)",
]


def split_folds(qids: list[str], folds: int, seed: int = FOLD_SEED) -> dict[str, int]:
    """Queries (in file order) shuffled by ``seed`` and cut into ``folds`` consecutive blocks."""
    order = list(range(len(qids)))
    random.Random(seed).shuffle(order)
    size = len(qids) // folds
    return {qids[i]: min(p // size, folds - 1) for p, i in enumerate(order)}


def fold_reranker(
    home: Path, fold: int, folds: int, train: list[dict], qrels, search: CorpusSearch, epochs: int
) -> Path:
    """The reranker for ``fold``, trained on ``train`` (the other folds' queries, negatives from
    ``search``'s stage 2), cached by what it learns from."""
    digest = hashlib.sha256(
        f"{FOLD_SEED}/{folds}/{epochs}/{NEGATIVES}/".encode()
        + ",".join(sorted(q["_id"] for q in train)).encode()
    ).hexdigest()[:12]
    out = home / "bench" / "ranking" / f"reranker-fold{fold}-{digest}"
    if (out / "config.json").exists():
        return out
    print(f"training the fold-{fold} reranker on {len(train)} queries …", flush=True)
    report = train_labelled_reranker(
        search,
        [(q["_id"], q["text"]) for q in train],
        {q["_id"]: set(qrels[q["_id"]]) for q in train},
        out,
        packaged_embedder_dir(),
        epochs=epochs,
        hard_negatives=NEGATIVES,
        progress=lambda line: print(f"  {line}", flush=True),
    )
    print(
        f"  {report.pairs} pairs, done in {report.fit.seconds:.0f}s ({report.fit.pairs_per_s} pairs/s)",
        flush=True,
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--folds", type=int, default=2, help="cross-validation folds, split by query")
    parser.add_argument(
        "--queries", type=int, default=0, help="score a seeded sample of N queries (0 = all 809)"
    )
    parser.add_argument("--rerank-top-k", type=int, default=30)
    parser.add_argument("--epochs", type=int, default=1, help="reranker training epochs")
    parser.add_argument(
        "--reranker",
        action="store_true",
        help="also train a reranker per fold (about 18 min each on 2 cores) and score stage 3 with it",
    )
    parser.add_argument("--rerun", action="store_true", help="also time a first run and a re-run of a task")
    parser.add_argument("--rerun-only", action="store_true", help="time only the first run and the re-runs")
    parser.add_argument(
        "--stage2-only",
        action="store_true",
        help="leave out stage 3 (the best sentence), "
        "which embeds the sentences of each query's top 20 papers",
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--home", default=None, help="Lyra home for caches (default ./.lyra)")
    args = parser.parse_args()
    set_threads(args.threads)

    beir = require_data("scifact", "beir")
    home = resolve_home(args.home)
    if args.rerun_only:
        rerun_timing(home / "bench" / "ranking", beir / "corpus.jsonl")
        return
    corpus = LocalCorpus.open(beir / "corpus.jsonl", cache_dir=home / "cache" / "corpus")
    qrels = read_qrels(beir / "qrels" / "train.tsv")
    queries = [q for q in read_jsonl(beir / "queries_train.jsonl") if q["_id"] in qrels]
    fold_of = split_folds([q["_id"] for q in queries], args.folds)
    scored = (
        queries if not args.queries else random.Random(13).sample(queries, min(args.queries, len(queries)))
    )
    doc_ids = [r.source_id for r in corpus.records]
    texts = [document_text(r) for r in corpus.records]
    print(
        f"BEIR-SciFact train: {len(corpus)} documents, {len(queries)} queries with judgements, "
        f"{args.folds} folds by query, {len(scored)} scored"
    )

    store, models = LyraStore.at(home), LocalModels(threads=args.threads)
    peak, through_lyra = embedding_throughput(models, store, texts)
    started = time.perf_counter()
    vectors = models.cached_encoder(store)(texts)
    print(
        f"corpus embeddings ready in {time.perf_counter() - started:.1f}s (cached in {store.layout.database})"
    )
    config = RankingConfig(rerank_top_k=args.rerank_top_k)
    search = CorpusSearch(corpus, store=store, models=models, reranker=None, config=config)
    sentences, sentence_note, sentence_config = paper_stage3(
        models, store, corpus, RankingConfig(), load_settings().ranking
    )
    shipped_search = CorpusSearch(
        corpus, store=store, models=models, reranker=sentences, config=sentence_config
    )
    print(f"shipped stage 3: {sentence_note}")
    plain = Bm25Index([tokenize(f"{r.title} {r.abstract or ''}") for r in corpus.records])
    embedder = models.embedder()

    latency: dict[str, list[float]] = {
        s: [] for s in ("BM25", "query embedding", "fusion", "best sentence", "reranker")
    }
    runs: dict[str, dict[str, list[str]]] = {m: {} for m in METHODS}
    inputs: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # BM25, query vector, cosines
    first_pool = max(load_settings().ranking.first_question_papers, config.bm25_top_k)
    for n, query in enumerate(scored):  # only the scored queries: the reranker's training reads none of this
        qid, text = query["_id"], query["text"]
        words = plain.get_scores(tokenize(text))
        t0 = time.perf_counter()
        bm25 = corpus.bm25_scores(text)
        t1 = time.perf_counter()
        qvec = embedder.encode([text])[0]
        t2 = time.perf_counter()
        dense = cosine(qvec, vectors)
        hybrid = rank_candidates(bm25, qvec, lambda idx: vectors[idx], None, config, dense=dense)
        t3 = time.perf_counter()
        narrow = rank_candidates(
            bm25, qvec, lambda idx: vectors[idx], None, config.model_copy(update={"dense_top_k": 0})
        )
        t4 = time.perf_counter()
        best = (
            None
            if args.stage2_only
            else rank_candidates(
                bm25,
                qvec,
                lambda idx: vectors[idx],
                lambda idx, text=text: sentences.score(text, [texts[i] for i in idx]),
                sentence_config,
                dense=dense,
            )
        )
        t5 = time.perf_counter()
        first_dense = np.full_like(dense, np.nan)
        embedded_first = words_best(bm25, first_pool)
        first_dense[embedded_first] = dense[embedded_first]
        first = rank_candidates(bm25, qvec, lambda idx: vectors[idx], None, config, dense=first_dense)
        for stage, seconds in zip(
            ("BM25", "query embedding", "fusion", "best sentence"),
            (t1 - t0, t2 - t1, t3 - t2, t5 - t4),
            strict=True,
        ):
            latency[stage].append(seconds)
        if n < 5:  # the bench ranks as `lyra search` does
            assert np.array_equal(search.scores(text)["final_rank"], hybrid["final_rank"]), "stage 2 differs"
            assert best is None or np.array_equal(
                shipped_search.scores(text)["final_rank"], best["final_rank"]
            ), "stage 3 differs"
        runs["BM25, plain words"][qid] = [doc_ids[i] for i in top_k(words, 100)]
        runs["BM25, index terms"][qid] = [doc_ids[i] for i in top_k(bm25, 100)]
        runs["dense"][qid] = [doc_ids[i] for i in top_k(dense, 100)]
        for name, scores in (
            ("fusion, BM25 top 100", narrow),
            ("hybrid fusion", hybrid),
            (FIRST, first),
            (SHIPPED, best),
        ):
            if scores is None:
                continue
            reached = np.flatnonzero(scores["final_rank"] > 0)
            runs[name][qid] = [doc_ids[i] for i in reached[np.argsort(scores["final_rank"][reached])]]
        inputs[qid] = (bm25, qvec, dense)

    if args.reranker:
        for fold in range(args.folds):
            train = [q for q in queries if fold_of[q["_id"]] != fold]
            path = fold_reranker(home, fold, args.folds, train, qrels, search, args.epochs)
            model = Reranker(path)
            for query in (q for q in scored if fold_of[q["_id"]] == fold):
                qid, (bm25, qvec, dense) = query["_id"], inputs[query["_id"]]

                def rerank(idx, text=query["text"], model=model):
                    start = time.perf_counter()
                    out = model.score(text, [texts[i] for i in idx])
                    latency["reranker"].append(time.perf_counter() - start)
                    return out

                ranked = rank_candidates(bm25, qvec, lambda idx: vectors[idx], rerank, config, dense=dense)
                reached = np.flatnonzero(ranked["final_rank"] > 0)
                runs["+ reranker (CV)"][qid] = [
                    doc_ids[i] for i in reached[np.argsort(ranked["final_rank"][reached])]
                ]

    print()
    print(
        f"{'method':<24} "
        + " ".join(f"{'fold ' + str(f):>8}" for f in range(args.folds))
        + f" {'nDCG@10':>8} {'Recall@100':>11}   vs BM25 (index terms)"
    )
    base = None
    for name in METHODS:
        rows = [q for q in scored if q["_id"] in runs[name]]
        if not rows:
            print(f"{name:<24} {'not run (add --reranker)':>30}")
            continue
        ndcg = {q["_id"]: ndcg_at_k(runs[name][q["_id"]], qrels[q["_id"]], 10) for q in rows}
        recall = np.mean([recall_at_k(runs[name][q["_id"]], qrels[q["_id"]], 100) for q in rows])
        per_fold = [
            np.mean([ndcg[q["_id"]] for q in rows if fold_of[q["_id"]] == f] or [np.nan])
            for f in range(args.folds)
        ]
        mean = float(np.mean(list(ndcg.values())))
        base = mean if name == "BM25, index terms" else base
        ratio = (f"×{mean / base:.3f}" if base else "") + (
            "   (lyra search's default)" if name == SHIPPED else ""
        )
        print(
            f"{name:<24} "
            + " ".join(f"{v:8.4f}" for v in per_fold)
            + f" {mean:8.4f} {recall:11.4f}   {ratio}"
        )
    print()
    print("speed (this machine, --threads {}):".format(args.threads))
    print(
        f"  corpus embedding: {through_lyra:,.1f} docs/s through Lyra's cache vs the model's peak "
        f"{peak:,.1f} docs/s (×{through_lyra / peak:.2f})"
    )
    for stage, seconds in latency.items():
        if seconds:
            print(latency_line(stage, seconds))
    if args.rerun:
        rerun_timing(home / "bench" / "ranking", beir / "corpus.jsonl")


if __name__ == "__main__":
    main()
