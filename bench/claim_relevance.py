"""Claim relevance to the question: embedding cosine alone vs cosine with term coverage.

SciFact train claims (never dev/test) stand for questions. A question's candidate claims are the
sentences of its 10 best BM25 abstracts in the SciFact corpus. Labels are APPROXIMATE: relevant =
a rationale sentence of one of the claim's gold evidence abstracts; not relevant = any sentence of
a retrieved abstract the claim does not cite (such a sentence can still be on topic, and a cited
abstract's other sentences are left out as undecided). Claims are split by
``claim_folds``: fold 0 is the test side, the others tune; the threshold (and the mix weight) are
chosen on the tune side only, then both methods are reported on both sides.

Then the claims asset's adoption rule (``lyra_core.evidence.adoption``, at most ``max_claims`` per
question), on the questions whose claim reading names an exposure, an outcome and a direction:
relevance alone at the tuned bar (a yes/no question's) and at the open-question bar, against the
parts gate (only sentences that name the outcome, with the exposure in them or in their abstract,
the direction judge's relevance gate) at either bar: pooled precision and recall, and the share of
questions that adopt nothing.

    nice -n 19 python -m bench.claim_relevance [--claims 260] [--cache /work/relbench]

Embeddings (all-MiniLM-L6-v2) are cached on disk under ``--cache``.
"""

from __future__ import annotations

import argparse
import hashlib
import random
from pathlib import Path

import numpy as np

from bench.common import read_jsonl, require_data
from lyra_core.bm25 import Bm25Index
from lyra_core.direction.claim_frame import read_claim
from lyra_core.evidence import ClaimCandidate, MergedClaim, adoption
from lyra_core.question_parts import QuestionParts, addresses_question
from lyra_core.relevance import DEFAULT_COSINE_WEIGHT, claim_relevance, term_weights
from lyra_core.splits import claim_folds
from lyra_core.text import tokenize
from lyra_resources.home import resolve_home
from lyra_resources.settings.pipeline import EvidenceSettings

TOP_DOCS = 10


def build_items(claims: list[dict], corpus: list[dict]) -> list[dict]:
    """One item per question: its text, candidate sentences, their labels, the retrieved abstracts
    and each sentence's abstract (its index in them)."""
    index = Bm25Index([tokenize(d["title"] + " " + " ".join(d["abstract"])) for d in corpus])
    by_id = {d["doc_id"]: d for d in corpus}
    items = []
    for claim in claims:
        scores = index.get_scores(tokenize(claim["claim"]))
        top = [corpus[i]["doc_id"] for i in np.argsort(-scores)[:TOP_DOCS]]
        cited = {int(d) for d in claim.get("cited_doc_ids", [])}
        rationale = {
            (int(d), s) for d, sets in claim["evidence"].items() for e in sets for s in e["sentences"]
        }
        sentences, labels, sources = [], [], []
        for rank, doc_id in enumerate(top):
            for s, text in enumerate(by_id[doc_id]["abstract"]):
                if (doc_id, s) in rationale or doc_id not in cited:
                    sentences.append(text)
                    labels.append(int((doc_id, s) in rationale))
                    sources.append(rank)
        if 1 in labels and 0 in labels:
            abstracts = [by_id[d]["title"] + " " + " ".join(by_id[d]["abstract"]) for d in top]
            items.append(
                {
                    "id": claim["id"],
                    "question": claim["claim"],
                    "sentences": sentences,
                    "labels": labels,
                    "abstracts": abstracts,
                    "sources": sources,
                }
            )
    return items


def embed(texts: list[str], cache: Path) -> dict[str, np.ndarray]:
    """Unit vectors of ``texts``, read from / written to one .npz per distinct text set."""
    unique = sorted(set(texts))
    key = hashlib.sha1("\n".join(unique).encode()).hexdigest()[:16]
    path = cache / f"minilm-{key}.npz"
    if path.exists():
        vectors = np.load(path)["vectors"]
    else:
        from lyra_resources.models.inference import embedder

        vectors = embedder().encode(unique)
        cache.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, vectors=vectors)
    return dict(zip(unique, vectors, strict=True))


def auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """Probability a relevant sentence outscores an irrelevant one (ties count half)."""
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    for value in np.unique(scores):  # average ranks of ties
        tie = scores == value
        ranks[tie] = ranks[tie].mean()
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def pr_at(scores: np.ndarray, labels: np.ndarray, threshold: float) -> tuple[float, float, float]:
    kept = scores >= threshold
    tp = float((kept & (labels == 1)).sum())
    precision = tp / kept.sum() if kept.sum() else 0.0
    recall = tp / (labels == 1).sum()
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def best_threshold(scores: np.ndarray, labels: np.ndarray) -> float:
    """The threshold of best F1 on these scores (a grid of 0.01)."""
    grid = np.round(np.arange(-0.2, 1.01, 0.01), 2)
    return float(max(grid, key=lambda t: (pr_at(scores, labels, t)[2], -t)))


def item_scores(item: dict, vectors: dict[str, np.ndarray], cosine_weight: float | None) -> np.ndarray:
    """One item's sentence scores; ``cosine_weight`` None = cosine alone."""
    q = vectors[item["question"]]
    cos = np.array([float(vectors[s] @ q) for s in item["sentences"]])
    if cosine_weight is None:
        return cos
    weights = term_weights(item["abstracts"])
    return claim_relevance(item["question"], item["sentences"], cos, weights, cosine_weight)


def scores_of(
    items: list[dict], vectors: dict[str, np.ndarray], cosine_weight: float | None
) -> tuple[np.ndarray, np.ndarray]:
    """All items' sentence scores and labels; ``cosine_weight`` None = cosine alone."""
    scores = [item_scores(item, vectors, cosine_weight) for item in items]
    return np.concatenate(scores), np.concatenate([np.array(item["labels"]) for item in items])


def with_parts(items: list[dict]) -> list[tuple[dict, QuestionParts]]:
    """The questions whose claim reading names an exposure and an outcome and a direction."""
    out = []
    for item in items:
        frame = read_claim(item["question"])
        if frame.exposure.strip() and frame.outcome.strip() and frame.directional:
            out.append((item, QuestionParts(exposure=frame.exposure.strip(), outcome=frame.outcome.strip())))
    return out


def adoption_figures(
    questions: list[tuple[dict, QuestionParts]],
    vectors: dict[str, np.ndarray],
    bar: float,
    gated: bool,
    max_claims: int,
) -> tuple[float, float, float]:
    """Precision and recall of adoption (``lyra_core.evidence.adoption``, pooled over the
    questions) and the share of questions that adopt nothing, with or without the parts gate."""
    tp = adopted = relevant = empty = 0
    for item, parts in questions:
        scores = item_scores(item, vectors, DEFAULT_COSINE_WEIGHT)
        merged = [
            MergedClaim(head=ClaimCandidate(text=t, origin="extracted", extractor="bench"), index=i)
            for i, t in enumerate(item["sentences"])
        ]
        addresses = None
        if gated:
            addresses = addresses_question(
                parts, item["sentences"], [item["abstracts"][k] for k in item["sources"]]
            )
        kept = np.array(adoption(merged, scores, max_claims, bar, addresses)) == "adopted"
        labels = np.array(item["labels"]) == 1
        tp += int((kept & labels).sum())
        adopted += int(kept.sum())
        relevant += int(labels.sum())
        empty += int(not kept.any())
    return (
        tp / adopted if adopted else 0.0,
        tp / relevant if relevant else 0.0,
        empty / max(len(questions), 1),
    )


def report_adoption(
    tune: list[dict], test: list[dict], vectors: dict[str, np.ndarray], bar: float, open_bar: float
) -> None:
    """Adoption with and without the parts gate, side by side, on the questions that have both parts."""
    max_claims = EvidenceSettings().max_claims
    sides = (("tune", with_parts(tune)), ("test", with_parts(test)))
    print(
        f"adoption ({max_claims} claims at most) on questions with an exposure, an outcome and a direction: "
        + ", ".join(f"{len(q)} {side}" for side, q in sides)
    )
    rules = (
        (f"(1) relevance ≥ {bar:.2f}", bar, False),
        (f"(2) relevance ≥ {open_bar:.2f}", open_bar, False),
        (f"(3) parts gate, relevance ≥ {bar:.2f}", bar, True),
        (f"(4) parts gate, relevance ≥ {open_bar:.2f}", open_bar, True),
    )
    print(f"{'rule':<38}{'side':<6}{'P':>7}{'R':>7}{'F1':>7}{'none adopted':>14}")
    for name, low, gated in rules:
        for side, questions in sides:
            p, r, none = adoption_figures(questions, vectors, low, gated, max_claims)
            f = 2 * p * r / (p + r) if p + r else 0.0
            print(f"{name:<38}{side:<6}{p:>7.3f}{r:>7.3f}{f:>7.3f}{none:>14.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--claims", type=int, default=260, help="questions (SciFact train claims with evidence)"
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="embedding cache folder (default: <home>/bench/claim_relevance)",
    )
    parser.add_argument("--home", default=None)
    args = parser.parse_args()
    cache = args.cache or resolve_home(args.home) / "bench" / "claim_relevance"
    claims = read_jsonl(require_data("scifact", "claims_train.jsonl"))
    corpus = read_jsonl(require_data("scifact", "corpus.jsonl"))
    folds = claim_folds(claims)
    with_evidence = [c for c in claims if c["evidence"]]
    random.Random(13).shuffle(with_evidence)
    items = build_items(with_evidence[: args.claims], corpus)
    tune = [i for i in items if folds[i["id"]] != 0]
    test = [i for i in items if folds[i["id"]] == 0]
    texts = [t for i in items for t in [i["question"], *i["sentences"]]]
    vectors = embed(texts, cache)
    n_sent = sum(len(i["sentences"]) for i in items)
    print(
        f"questions: {len(tune)} tune / {len(test)} test; candidate sentences: {n_sent} "
        f"({sum(sum(i['labels']) for i in items)} labelled relevant); "
        "labels are approximate (see docstring)"
    )

    weights = [None] + [round(w, 2) for w in np.arange(0.0, 1.01, 0.1)]
    tune_auc = {w: auc(*scores_of(tune, vectors, w)) for w in weights[1:]}
    best_w = max(tune_auc, key=tune_auc.get)
    print("tune AUC by cosine weight: " + ", ".join(f"{w}: {a:.3f}" for w, a in tune_auc.items()))
    print(f"chosen cosine weight (tune side): {best_w}; packaged default: {DEFAULT_COSINE_WEIGHT}")
    print(f"{'method':<34}{'side':<6}{'AUC':>7}{'thr':>7}{'P':>7}{'R':>7}{'F1':>7}")
    for name, w in (("(a) cosine to the question", None), (f"(b) cosine+coverage w={best_w}", best_w)):
        thr = best_threshold(*scores_of(tune, vectors, w))
        for side, part in (("tune", tune), ("test", test)):
            s, y = scores_of(part, vectors, w)
            p, r, f = pr_at(s, y, thr)
            print(f"{name:<34}{side:<6}{auc(s, y):>7.3f}{thr:>7.2f}{p:>7.3f}{r:>7.3f}{f:>7.3f}")
        s, y = scores_of(test, vectors, w)
        if w is None:
            p, r, f = pr_at(s, y, 0.25)
            print(
                f"{'(a) at the old threshold 0.25':<34}{'test':<6}"
                f"{auc(s, y):>7.3f}{0.25:>7.2f}{p:>7.3f}{r:>7.3f}{f:>7.3f}"
            )
    # An open question's answer is its claims: the bar that keeps most relevant ones (recall ≥ 0.6 on tune)
    tune_s, tune_y = scores_of(tune, vectors, DEFAULT_COSINE_WEIGHT)
    grid = [round(t, 2) for t in np.arange(0.30, 0.60, 0.01)]
    open_bar = max(t for t in grid if pr_at(tune_s, tune_y, t)[1] >= 0.6)
    test_s, test_y = scores_of(test, vectors, DEFAULT_COSINE_WEIGHT)
    p, r, f = pr_at(test_s, test_y, open_bar)
    print(
        f"{'(b) open-question bar (R≥0.6 tune)':<34}{'test':<6}{auc(test_s, test_y):>7.3f}{open_bar:>7.2f}"
        f"{p:>7.3f}{r:>7.3f}{f:>7.3f}"
    )
    # The claims asset's rule: the bar above for claims beside a hypothesis, and the parts gate
    report_adoption(tune, test, vectors, best_threshold(tune_s, tune_y), open_bar)


if __name__ == "__main__":
    main()
