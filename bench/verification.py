"""Claim verification benchmark on SciFact train claims (5,183-abstract corpus).

For each claim, Lyra's own steps run as in a task with ``--claim``: BM25 paper search for the claim
→ sentence-window fragments → the claim's most similar fragments by embedding → NLI edges →
Bayesian claim score → verdict. Verdicts map to SciFact labels (supported / well_supported →
SUPPORT, likely_false → CONTRADICT, anything else → NEI). The same is run with oracle abstracts
(the claim's cited documents as the only papers). Gold labels are read only to score.

The seed's verdict rule is printed beside a calibrated alternative (thresholds on the strongest
entailment and contradiction probabilities), tuned on one half of the claims (split by claim id)
and compared on the other half; the default changes only if the alternative wins there.

    .venv/bin/python -m bench.verification [--claims N] [--papers K]
"""

from __future__ import annotations

import argparse
import itertools
import random
import time

import numpy as np

from bench.common import read_jsonl, require_data
from lyra_core.evidence import select_pairs
from lyra_core.fragments import make_fragments
from lyra_core.scoring import Evidence, bayesian_score
from lyra_resources.corpus import LocalCorpus
from lyra_resources.models import PACKAGED_EMBEDDER, embedder, nli_model, set_threads
from lyra_resources.settings import resolve_home, settings
from lyra_resources.store import LyraStore

LABELS = ("SUPPORT", "CONTRADICT", "NEI")
VERDICT_TO_LABEL = {"supported": "SUPPORT", "well_supported": "SUPPORT", "likely_false": "CONTRADICT"}


def gold_label(claim: dict) -> str:
    labels = {s["label"] for sets in claim["evidence"].values() for s in sets}
    return next(iter(labels)) if len(labels) == 1 else ("NEI" if not labels else "SUPPORT")


def macro_f1(gold: list[str], predicted: list[str]) -> tuple[float, dict[str, tuple[float, float, float]]]:
    per = {}
    for label in LABELS:
        tp = sum(g == p == label for g, p in zip(gold, predicted, strict=True))
        fp = sum(p == label != g for g, p in zip(gold, predicted, strict=True))
        fn = sum(g == label != p for g, p in zip(gold, predicted, strict=True))
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per[label] = (precision, recall, f1)
    return float(np.mean([v[2] for v in per.values()])), per


class Judged:
    """One claim's edges: (relation, confidence, page, entailment prob, contradiction prob)."""

    def __init__(self, edges: list[tuple[str, float, str, float, float]]):
        self.edges = edges

    def seed_verdict(self) -> str:
        score = bayesian_score(Evidence(relation=r, nli_confidence=c, page_id=p) for r, c, p, _, _ in self.edges)
        return VERDICT_TO_LABEL.get(score.verdict, "NEI")

    def calibrated(self, support_t: float, refute_t: float) -> str:
        entail = max((e for *_, e, _ in self.edges), default=0.0)
        contra = max((c for *_, c in self.edges), default=0.0)
        if contra >= refute_t and contra >= entail:
            return "CONTRADICT"
        if entail >= support_t:
            return "SUPPORT"
        return "NEI"


def judge(claim_text: str, doc_indices: list[int], corpus, frag_cache: dict, encode, nli, k: int) -> Judged:
    cfg = settings().fragments
    fragments = []
    for i in doc_indices:
        if i not in frag_cache:
            record = corpus.records[i]
            frag_cache[i] = make_fragments(record.source_id, record.abstract or "", window=cfg.window_sentences,
                                           stride=cfg.stride_sentences, max_chars=cfg.max_chars)
        fragments.extend(frag_cache[i])
    if not fragments:
        return Judged([])
    frag_vectors = encode([f.text for f in fragments])
    claim_vector = encode([claim_text])
    chosen = select_pairs(claim_vector, frag_vectors, [f.page_id for f in fragments], [set()], k)[0]
    predictions = nli.predict([(fragments[j].text, claim_text) for j, _ in chosen])
    return Judged([(p.relation, p.confidence, fragments[j].page_id, p.probs["entailment"], p.probs["contradiction"])
                   for (j, _), p in zip(chosen, predictions, strict=True)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=300, help="seeded sample of train claims (0 = all 809)")
    parser.add_argument("--papers", type=int, default=10, help="papers retrieved per claim")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--home", default=None)
    args = parser.parse_args()
    set_threads(args.threads)

    data = require_data("scifact")
    home = resolve_home(args.home)
    corpus = LocalCorpus.open(data / "corpus.jsonl", cache_dir=home / "cache" / "corpus")
    index_of = {r.source_id: i for i, r in enumerate(corpus.records)}
    claims = read_jsonl(data / "claims_train.jsonl")
    if args.claims:
        claims = random.Random(13).sample(claims, min(args.claims, len(claims)))
    claims.sort(key=lambda c: c["id"])
    store = LyraStore.at(home)
    model = embedder(PACKAGED_EMBEDDER)
    encode = lambda texts: store.cached_embeddings(PACKAGED_EMBEDDER, texts, model.encode)
    nli = nli_model()
    k = settings().evidence.nli_top_k
    print(f"SciFact train: {len(claims)} claims, corpus {len(corpus)} abstracts, {args.papers} papers per claim, "
          f"NLI top-{k} fragments, model {nli.version}")

    frag_cache: dict[int, list] = {}
    retrieved, oracle, gold = [], [], []
    started = time.perf_counter()
    for claim in claims:
        hits = corpus.search(claim["claim"], limit=args.papers)
        retrieved.append(judge(claim["claim"], [index_of[h.source_id] for h in hits], corpus, frag_cache, encode, nli, k))
        cited = [index_of[str(d)] for d in claim["cited_doc_ids"] if str(d) in index_of]
        oracle.append(judge(claim["claim"], cited, corpus, frag_cache, encode, nli, k))
        gold.append(gold_label(claim))
    seconds = time.perf_counter() - started

    # Tune the alternative on even claim ids, compare both rules on odd ones (never tuned on).
    tune = [i for i, c in enumerate(claims) if c["id"] % 2 == 0]
    test = [i for i, c in enumerate(claims) if c["id"] % 2 == 1]
    grid = [round(x, 2) for x in np.arange(0.3, 1.0, 0.05)]
    best = max(itertools.product(grid, grid), key=lambda t: macro_f1(
        [gold[i] for i in tune], [retrieved[i].calibrated(*t) for i in tune])[0])

    def report(name: str, judged: list[Judged], rule, rows: list[int]) -> None:
        f1, per = macro_f1([gold[i] for i in rows], [rule(judged[i]) for i in rows])
        cells = "  ".join(f"{lab[:4]} P {per[lab][0]:.2f} R {per[lab][1]:.2f}" for lab in LABELS)
        print(f"{name:<44} macro-F1 {f1:.3f}   {cells}")

    seed_rule, alt_rule = (lambda j: j.seed_verdict()), (lambda j: j.calibrated(*best))
    every = list(range(len(claims)))
    print("\ngold labels: " + ", ".join(f"{lab} {gold.count(lab)}" for lab in LABELS))
    print("\nall claims")
    report("seed verdict rule, retrieved abstracts", retrieved, seed_rule, every)
    report("seed verdict rule, oracle abstracts", oracle, seed_rule, every)
    print(f"\nheld-out half (odd claim ids, {len(test)} claims); alternative tuned on the even half: "
          f"SUPPORT if max P(entail) ≥ {best[0]}, CONTRADICT if max P(contra) ≥ {best[1]}")
    report("seed verdict rule, retrieved", retrieved, seed_rule, test)
    report("calibrated alternative, retrieved", retrieved, alt_rule, test)
    report("seed verdict rule, oracle", oracle, seed_rule, test)
    report("calibrated alternative, oracle", oracle, alt_rule, test)
    seed_f1 = macro_f1([gold[i] for i in test], [seed_rule(retrieved[i]) for i in test])[0]
    alt_f1 = macro_f1([gold[i] for i in test], [alt_rule(retrieved[i]) for i in test])[0]
    print(f"\nalternative / seed macro-F1 on held-out claims: ×{alt_f1 / seed_f1 if seed_f1 else float('inf'):.2f}")
    print(f"throughput: {len(claims) * 2 / seconds:.2f} claims/s (retrieved + oracle runs, embeddings cached after "
          f"the first run; {seconds:.0f}s in all)")


if __name__ == "__main__":
    main()
