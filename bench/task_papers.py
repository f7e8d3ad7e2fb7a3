"""Which papers a task takes from a local corpus: BM25 alone against the hybrid ranking, side by side.

    .venv/bin/python -m bench.task_papers [--claims 200] [--seed 13] [--papers N] [--home H]

SciFact train claims (never dev or test) are asked as task questions of the SciFact corpus
(``scifact/corpus.jsonl``, 5,183 abstracts). For each, the task's N papers (the ``papers``
asset's default, ``search.papers_per_source``) are taken two ways through the providers the
``papers`` asset uses:

- BM25 alone: ``LocalCorpusProvider`` (the corpus's BM25 index over index terms);
- hybrid: ``RankedCorpusProvider`` (``lyra search``'s ranking: BM25's top 100 and the 100 papers
  nearest by embedding, fused 0.3·BM25 + 0.7·cosine), the corpus wholly embedded;
- first question, pool P: the same ranking as the first question of a new library makes it, its
  nearest papers by embedding sought only among its BM25 best P (``ranking.first_question_papers``,
  the papers it embeds at once), for each P of ``--pools``.

Each row is the mean over the claims of the share of a claim's cited papers among the N
(recall@N), the share of claims all of whose cited papers are there, and recall@10 (in the
fused order, before stage 3). Stage 3
(the best sentence) reorders only the fused top ``ranking.paper_rerank_top_k`` (20), inside
the N, so it changes no set of N papers; it is left out of the loop to keep the bench to minutes,
and the first claims check that the shipped search takes the same N papers. The corpus is
embedded once per home (a few minutes on 2 cores the first time, then read from the cache).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

import numpy as np

from bench.common import read_jsonl, require_data
from lyra_core.papers import PaperRecord
from lyra_core.ranking import words_best
from lyra_resources.corpus.local_corpus import LocalCorpus, LocalCorpusProvider
from lyra_resources.corpus.search import CorpusSearch, RankedCorpusProvider, hybrid_search
from lyra_resources.home import resolve_home
from lyra_resources.models.inference import set_threads
from lyra_resources.models.local_models import LocalModels
from lyra_resources.settings.loading import load_settings
from lyra_resources.store.lyra_store import LyraStore

CHECKED = 5  # claims whose N papers are compared with the shipped search's (stage 3 included)


class FirstQuestion(RankedCorpusProvider):
    """The hybrid as a new library's first question ranks: its nearest papers by embedding only
    among its BM25 best ``pool`` (every vector given, the others hidden)."""

    def __init__(self, search: CorpusSearch, every: np.ndarray, pool: int) -> None:
        super().__init__(search)
        self.every, self.pool = every, pool

    async def search(self, query: str, limit: int = 50) -> list[PaperRecord]:
        embedded = words_best(self.corpus.bm25_scores(query), max(self.pool, self.ranking.config.bm25_top_k))
        hidden = np.full_like(self.every, np.nan)
        hidden[embedded] = self.every[embedded]
        self.ranking.vectors = hidden
        return await super().search(query, limit)


def recall(found: list[str], cited: set[str]) -> float:
    return len(cited.intersection(found)) / len(cited)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--claims", type=int, default=200, help="a seeded sample of N train claims (0 = all)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--papers", type=int, default=0, help="papers per task (default: search.papers_per_source)"
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--pools", default="100,200,300,500", help="first-question pools to compare (comma-separated)"
    )
    parser.add_argument("--home", default=None, help="Lyra home for caches (default ./.lyra)")
    args = parser.parse_args()
    set_threads(args.threads)

    data = require_data("scifact")
    settings = load_settings()
    papers = args.papers or settings.search.papers_per_source
    home = resolve_home(args.home)
    corpus = LocalCorpus.open(data / "corpus.jsonl", cache_dir=home / "cache" / "corpus")
    claims = [c for c in read_jsonl(data / "claims_train.jsonl") if c.get("cited_doc_ids")]
    if args.claims:
        claims = random.Random(args.seed).sample(claims, min(args.claims, len(claims)))
    print(
        f"SciFact train: {len(claims)} claims as questions (seed {args.seed}), {len(corpus):,} papers, "
        f"{papers} papers per task"
    )

    store, models = LyraStore.at(home), LocalModels(threads=args.threads)
    shipped = hybrid_search(
        corpus,
        store=store,
        models=models,
        settings=settings,
        on_embedding=lambda step: print(step.line(str(corpus.path)), flush=True),
    )
    started = time.perf_counter()
    _ = shipped.vectors
    print(
        f"corpus embeddings ready in {time.perf_counter() - started:.1f}s (cached in {store.layout.database})"
    )
    fused = CorpusSearch(corpus, store=store, models=models, reranker=None, config=shipped.config)
    fused.vectors = shipped.vectors  # the same embeddings, read once
    providers: dict[str, LocalCorpusProvider] = {
        "BM25 alone": LocalCorpusProvider(corpus),
        "hybrid": RankedCorpusProvider(fused),
    }
    for pool in (int(p) for p in args.pools.split(",") if p.strip()):
        first = CorpusSearch(corpus, store=store, models=models, reranker=None, config=shipped.config)
        providers[f"first, pool {pool}"] = FirstQuestion(first, shipped.vectors, pool)

    found: dict[str, list[list[str]]] = {name: [] for name in providers}
    started = time.perf_counter()
    for n, claim in enumerate(claims):
        for name, provider in providers.items():
            found[name].append([r.source_id for r in asyncio.run(provider.search(claim["claim"], papers))])
        if n < CHECKED:
            with_stage3 = asyncio.run(RankedCorpusProvider(shipped).search(claim["claim"], papers))
            assert {r.source_id for r in with_stage3} == set(found["hybrid"][-1]), (
                "stage 3 changed the papers"
            )
    seconds = time.perf_counter() - started

    cited = [{str(d) for d in c["cited_doc_ids"]} for c in claims]
    print()
    print(
        f"{'papers taken by':<20} {f'recall@{papers}':>10} {'all cited':>10} {'recall@10':>10} {'papers':>7}"
    )
    rows = {}
    for name, runs in found.items():
        at_n = np.array([recall(r, c) for r, c in zip(runs, cited, strict=True)])
        at_10 = np.mean([recall(r[:10], c) for r, c in zip(runs, cited, strict=True)])
        rows[name] = at_n
        print(
            f"{name:<20} {at_n.mean():10.3f} {np.mean(at_n == 1.0):10.3f} {at_10:10.3f} "
            f"{np.mean([len(r) for r in runs]):7.1f}"
        )
    gained = int(np.sum(rows["hybrid"] > rows["BM25 alone"]))
    lost = int(np.sum(rows["hybrid"] < rows["BM25 alone"]))
    print(
        f"\nhybrid finds more of a claim's cited papers for {gained} claims, fewer for {lost} "
        f"({seconds:.1f}s for {len(claims)} claims, both ways)"
    )


if __name__ == "__main__":
    main()
