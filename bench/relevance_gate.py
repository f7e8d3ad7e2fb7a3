"""Precision and recall of the gate that lets a passage vote on an effect claim only when it is about
the claim's exposure and outcome (``lyra_core.direction.relevance``), on labelled pairs built here:

- *Evidence Inference* (validation and test articles): an annotated evidence span with its own
  intervention and outcome and its article's abstract is about them; the same span asked about
  another article's outcome, or another article's intervention, is not.
- *SciFact train*: each claim the claim reader gives a direction, with the rationale sentences of a
  paper it cites (and that paper's abstract), is about it; with the passage of the best BM25 paper
  it does not cite that shares the most words with it (and that paper's abstract), it is not
  (SciFact's evidence is incomplete, so some of these are in truth about the claim: the precision
  below counts them as errors).

    .venv/bin/python -m bench.relevance_gate
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from bench.common import read_jsonl, require_data
from lyra_core.bm25 import Bm25Index
from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.relevance import MATCH_SHARE, relevance
from lyra_core.splits import claim_folds
from lyra_core.text import index_terms
from lyra_training.direction_data import read_findings


def _abstract(folder: Path, article: str) -> str:
    path = folder / "abstracts" / f"PMC{article}.abst"
    return " ".join(path.read_text(encoding="utf-8", errors="replace").split()) if path.exists() else ""


def evidence_inference_pairs(
    folder: Path, splits: tuple[str, ...], seed: int = 5
) -> list[tuple[str, str, str, str, bool]]:
    rng = random.Random(seed)
    findings = [f for split in splits for f in read_findings(folder, split)]
    pairs = []
    for f in findings:
        paper = _abstract(folder, f.article)
        pairs.append((f.intervention, f.outcome, f.span, paper, True))
        other = rng.choice([g for g in findings if g.article != f.article])
        pairs.append((f.intervention, other.outcome, f.span, paper, False))
        pairs.append((other.intervention, f.outcome, f.span, paper, False))
    return pairs


def scifact_pairs(scifact: Path, folds: set[int]) -> list[tuple[str, str, str, str, bool]]:
    corpus = {d["doc_id"]: d for d in read_jsonl(scifact / "corpus.jsonl")}
    ids = list(corpus)
    index = Bm25Index([index_terms(corpus[i]["title"] + " " + " ".join(corpus[i]["abstract"])) for i in ids])
    claims = read_jsonl(scifact / "claims_train.jsonl")
    fold_of = claim_folds(claims, 5)
    pairs = []
    for claim in claims:
        frame = read_claim(claim["claim"])
        if fold_of[claim["id"]] not in folds or not frame.directional or not claim["evidence"]:
            continue
        cited = {int(d) for d in claim["cited_doc_ids"]}
        for doc_id, sets in claim["evidence"].items():
            doc = corpus[int(doc_id)]
            passage = " ".join(doc["abstract"][i] for s in sets for i in s["sentences"])
            pairs.append(
                (frame.exposure, frame.outcome, passage, doc["title"] + " " + " ".join(doc["abstract"]), True)
            )
        scores = index.get_scores(index_terms(claim["claim"]))
        best = next(ids[i] for i in scores.argsort()[::-1] if ids[i] not in cited)
        doc = corpus[best]
        terms = set(index_terms(claim["claim"]))
        sentence = max(doc["abstract"], key=lambda s: len(terms & set(index_terms(s))))
        pairs.append(
            (frame.exposure, frame.outcome, sentence, doc["title"] + " " + " ".join(doc["abstract"]), False)
        )
    return pairs


def score(pairs: list[tuple[str, str, str, str, bool]], share: float) -> tuple[float, float, int, int]:
    gated = [relevance(x, y, passage, paper, share).about_both for x, y, passage, paper, _ in pairs]
    gold = [p[4] for p in pairs]
    tp = sum(g and p for g, p in zip(gold, gated, strict=True))
    precision = tp / max(sum(gated), 1)
    recall = tp / max(sum(gold), 1)
    return precision, recall, sum(gold), len(gold) - sum(gold)


SHARES = (0.0, 0.34, 0.5, 0.67)  # 0.0: any one specific term is enough


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    data = require_data()
    folder = data / "nli_training" / "evidence_inference"
    tune = {
        "Evidence Inference train": evidence_inference_pairs(folder, ("train",)),
        "SciFact train, folds 0-2": scifact_pairs(data / "scifact", {0, 1, 2}),
    }
    held_out = {
        "Evidence Inference val+test": evidence_inference_pairs(folder, ("validation", "test")),
        "SciFact train, folds 3-4": scifact_pairs(data / "scifact", {3, 4}),
    }
    print("gate: the passage names the outcome and it or its paper names the exposure (stemmed terms);")
    print(
        "share: the part of a phrase's specific terms that must be met. Tuned on one side, scored on the other."
    )
    f1 = {}
    for share in SHARES:
        cells = []
        for name, pairs in tune.items():
            precision, recall, _, _ = score(pairs, share)
            f1[share] = f1.get(share, 0) + 2 * precision * recall / max(precision + recall, 1e-9)
            cells.append(f"{name}: P {precision:.3f} R {recall:.3f}")
        print(f"  tune  share {share:.2f}  " + "  |  ".join(cells))
    best = max(SHARES, key=f1.__getitem__)
    print(f"chosen share (best mean F1 on the tuning side): {best} (shipped: {MATCH_SHARE})")
    for share in sorted({best, 0.0}):
        for name, pairs in held_out.items():
            precision, recall, positives, negatives = score(pairs, share)
            print(
                f"  held out  share {share:.2f}  {name:28s} precision {precision:.3f}  recall {recall:.3f}  "
                f"({positives} about, {negatives} not)"
            )


if __name__ == "__main__":
    main()
