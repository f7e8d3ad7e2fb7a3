"""Which sentences of an abstract report the finding a claim is about: today's choice by meaning
(the embedder's cosine, as ``nli_edges`` ranks fragments), BM25, and the learned evidence selector,
side by side on sets the selector never trained on.

- Evidence Inference test abstracts (v1+v2, abstract level): recall of the annotated evidence
  sentence in the top 1 / 3, the query the effect it asks about ("effect of I versus C on O") or a
  claim about it ("I increases O compared with C").
- Evidence Inference v2 test prompts: the share whose annotated evidence lies in the abstract at all
  (the rest is in the full text, which an abstract-level judge never reads), and recall@3 on those.
- Check-COVID test claims: recall@3 of their evidence sentences.
- SciFact train claims (all 809, none trained on by the selector) against the papers they cite:
  rationale sentence selection precision / recall / F1, a sentence chosen where its score clears a
  threshold picked on the claims with even ids and read on the odd ones (SciFact's sentence-level
  figure without the label), and recall@3.

    .venv/bin/python -m bench.evidence_selector --selector DIR [--scifact N --seed 13] [--threads 2]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import numpy as np

from bench.common import SHARED_DATA, require_data
from lyra_core.bm25 import Bm25Index
from lyra_resources.models.evidence_selector import EvidenceSelector
from lyra_resources.models.inference import embedder, set_threads
from lyra_training.selector import held_out_sides
from lyra_training.selector_data import EvidenceQuery, finding_claim

Scorer = Callable[[list[EvidenceQuery]], list[np.ndarray]]


def cosine_scorer(queries: list[EvidenceQuery]) -> list[np.ndarray]:
    model = embedder()
    texts = sorted({q.query for q in queries} | {s for q in queries for s in q.sentences})
    vectors = dict(zip(texts, model.encode(texts), strict=True))
    return [np.array([float(vectors[q.query] @ vectors[s]) for s in q.sentences]) for q in queries]


def bm25_scorer(queries: list[EvidenceQuery]) -> list[np.ndarray]:
    out = []
    for q in queries:
        index = Bm25Index([s.lower().split() for s in q.sentences])
        out.append(np.asarray(index.get_scores(q.query.lower().split()), dtype=float))
    return out


def selector_scorer(path: str) -> Scorer:
    selector = EvidenceSelector(path)
    return lambda queries: selector.scores([q.query for q in queries], [q.sentences for q in queries])


def recall_at(queries: list[EvidenceQuery], scores: list[np.ndarray], k: int) -> float:
    hits = [
        bool(set(np.argsort(-s)[:k].tolist()) & set(q.gold)) for q, s in zip(queries, scores, strict=True)
    ]
    return float(np.mean(hits)) if hits else float("nan")


def selection_counts(
    queries: list[EvidenceQuery], scores: list[np.ndarray], threshold: float
) -> tuple[int, int, int]:
    tp = fp = fn = 0
    for q, s in zip(queries, scores, strict=True):
        chosen = set(np.flatnonzero(s >= threshold).tolist())
        gold = set(q.gold)
        tp, fp, fn = tp + len(chosen & gold), fp + len(chosen - gold), fn + len(gold - chosen)
    return tp, fp, fn


def f1(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def best_threshold(queries: list[EvidenceQuery], scores: list[np.ndarray]) -> float:
    candidates = np.quantile(np.concatenate(scores), np.linspace(0.5, 0.995, 100))
    return float(max(candidates, key=lambda t: f1(*selection_counts(queries, scores, t))[2]))


def as_claims(queries: list[EvidenceQuery]) -> list[EvidenceQuery]:
    """The same findings asked as claims, each in the direction its annotators found."""
    return [
        q.model_copy(update={"query": finding_claim(q.intervention, q.comparator, q.outcome, q.label)})
        for q in queries
    ]


def scifact_figures(name: str, queries: list[EvidenceQuery], scores: list[np.ndarray]) -> None:
    even = [i for i, q in enumerate(queries) if int(q.source.split(":")[1]) % 2 == 0]
    odd = [i for i in range(len(queries)) if i not in set(even)]
    threshold = best_threshold([queries[i] for i in even], [scores[i] for i in even])
    rows = []
    for side, idx in (("even (choose)", even), ("odd (held out)", odd), ("all", range(len(queries)))):
        p, r, f = f1(*selection_counts([queries[i] for i in idx], [scores[i] for i in idx], threshold))
        rows.append(f"{side} P {p:.3f} R {r:.3f} F1 {f:.3f}")
    annotated = [i for i, q in enumerate(queries) if q.gold]
    r3 = recall_at([queries[i] for i in annotated], [scores[i] for i in annotated], 3)
    print(f"  {name:<10} SciFact sentence selection: {' | '.join(rows)}; recall@3 {r3:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--selector", required=True, help="folder of a trained evidence selector")
    parser.add_argument("--methods", default="BM25,cosine,selector", help="which of BM25, cosine, selector")
    parser.add_argument(
        "--scifact", type=int, default=0, help="SciFact train claims drawn by --seed (0: all)"
    )
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    set_threads(args.threads)
    require_data("nli_training", "evidence_inference_linearized")
    started = time.perf_counter()
    sides = held_out_sides(SHARED_DATA)
    v2 = sides["ei_v2_test"]
    in_abstract = [q for q in v2 if q.gold]
    print(
        f"Evidence Inference v2 test: {len(in_abstract)} of {len(v2)} annotated spans "
        f"({len(in_abstract) / max(len(v2), 1):.0%}) lie in the abstract"
    )
    sets = {
        "EI test, effect question": sides["ei_test"],
        "EI test, claim": as_claims(sides["ei_test"]),
        "EI v2 test, in abstract": in_abstract,
        "Check-COVID test": sides["check_covid_test"],
    }
    scifact = [q for q in sides["scifact_train"] if q.sentences]
    if args.scifact:
        drawn = set(random.Random(args.seed).sample(sorted({q.source for q in scifact}), args.scifact))
        scifact = [q for q in scifact if q.source in drawn]
    scorers: dict[str, Scorer] = {
        "BM25": bm25_scorer,
        "cosine": cosine_scorer,
        "selector": selector_scorer(args.selector),
    }
    for name in args.methods.split(","):
        scorer = scorers[name]
        for label, queries in sets.items():
            scores = scorer(queries)
            print(
                f"  {name:<10} {label:<26} n={len(queries):<4} recall@1 {recall_at(queries, scores, 1):.3f} "
                f"recall@3 {recall_at(queries, scores, 3):.3f}"
            )
        scifact_figures(name, scifact, scorer(scifact))
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
