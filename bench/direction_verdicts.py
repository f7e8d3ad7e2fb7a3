"""Claim verdicts on SciFact train claims that assert the direction of an effect, two judges side by
side in one run on the same evidence:

- *cross-encoder*: Lyra's shipped claim verifier judges every (passage, claim) pair. It was trained on
  these very claims (``lyra models train-nli`` fits its final weights on all SciFact train claims), so
  its figures here are in-sample: an optimistic baseline.
- *direction judge*: the claim's exposure, outcome and direction read by rule, the passage's figures,
  the direction reader (never trained on SciFact) and the exposure/outcome gate
  (``lyra_resources.models.direction_judge``), as ``nli_edges`` uses them; twice, with the two rules
  for a passage whose words and figures state no direction (``evidence.unstated_direction``).

Evidence as in ``bench.verification``: *retrieved*, the claim's 8 most similar two-sentence windows
among its 10 best BM25 papers; *oracle*, every window of the papers it cites. A claim's verdict is
Lyra's: one vote per paper (its strongest edge), the Beta update, the verdict thresholds (supported /
well_supported → SUPPORT, likely_false → CONTRADICT, else NEI), no evidence gates for either judge.

    .venv/bin/python -m bench.direction_verdicts [--evidence both|oracle] [--home DIR] [--limit N]
"""

from __future__ import annotations

import argparse
import json

from bench.common import require_data
from bench.judge_abstracts import THRESHOLDS, at_threshold, cached
from bench.verification import VERDICT_TO_LABEL, build_eval_set, report
from lyra_core.direction.claim_frame import read_claim
from lyra_core.scoring import Evidence, ScoringRule, score_claim
from lyra_resources.home import resolve_home
from lyra_resources.models.direction_judge import READER_ALONE_MIN, direction_reader, judge_triples
from lyra_resources.models.inference import nli_model, set_threads


def oracle_set(data) -> list[dict]:
    """The directional train claims with every window of the papers they cite (``bench.verification``'s
    oracle evidence, without its retrieved side)."""
    from lyra_core.fragments import make_fragments
    from lyra_training.verifier_data import gold_label, read_jsonl

    abstracts = {str(r["doc_id"]): " ".join(r["abstract"]) for r in read_jsonl(data / "corpus.jsonl")}
    out = []
    for claim in read_jsonl(data / "claims_train.jsonl"):
        if not read_claim(claim["claim"]).directional:
            continue
        cited = [str(d) for d in claim["cited_doc_ids"] if str(d) in abstracts]
        out.append(
            {
                "id": claim["id"],
                "claim": claim["claim"],
                "gold": gold_label(claim),
                "oracle": [
                    {"doc": d, "text": f.text} for d in cited for f in make_fragments(d, abstracts[d])
                ],
            }
        )
    return out


def _verdict(edges: list[tuple[str, float, str]]) -> str:
    evidence = [Evidence(relation=r, nli_confidence=c, page_id=doc) for r, c, doc in edges]
    return VERDICT_TO_LABEL.get(score_claim(evidence, True, ScoringRule()).verdict, "NEI")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", default=None)
    parser.add_argument("--limit", type=int, default=0, help="only the first N directional claims (0: all)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--evidence",
        choices=("both", "oracle"),
        default="both",
        help="oracle: only the cited papers' windows (no corpus search or embedding: minutes, not an hour)",
    )
    args = parser.parse_args()
    set_threads(args.threads)
    data = require_data("scifact")
    if args.evidence == "both":
        claims = [
            c for c in build_eval_set(data, resolve_home(args.home)) if read_claim(c["claim"]).directional
        ]
    else:
        claims = oracle_set(data)
    claims = claims[: args.limit] if args.limit else claims
    papers = {}
    with (data / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            papers[str(row["doc_id"])] = f"{row['title']} {' '.join(row['abstract'])}"
    gold = {c["id"]: c["gold"] for c in claims}
    print(
        f"SciFact train claims with a direction: {len(claims)} of the train set "
        f"({sum(g == 'SUPPORT' for g in gold.values())} SUPPORT, "
        f"{sum(g == 'CONTRADICT' for g in gold.values())} CONTRADICT, {sum(g == 'NEI' for g in gold.values())} NEI)"
    )
    verifier = nli_model()
    read, answered = cached(direction_reader().predict, {}), {}
    nli = cached(verifier.predict, answered)
    for mode in ("retrieved", "oracle") if args.evidence == "both" else ("oracle",):
        items = [(c["id"], c["claim"], f["text"], f["doc"]) for c in claims for f in c[mode]]
        crossed = verifier.predict([(text, claim) for _, claim, text, _ in items])
        answered.update(
            {(text, claim): p.model_dump() for (_, claim, text, _), p in zip(items, crossed, strict=True)}
        )
        triples = [(claim, text, papers.get(doc, "")) for _, claim, text, doc in items]
        by_cross: dict[int, list] = {c["id"]: [] for c in claims}
        for (cid, _, _, doc), cross in zip(items, crossed, strict=True):
            by_cross[cid].append((cross.relation, cross.confidence, doc))
        print(f"{mode} evidence ({len(items)} pairs)")
        report("cross-encoder (in-sample)", gold, {c: _verdict(e) for c, e in by_cross.items()})
        # where no word or figure states a direction: the cross-encoder (the older rule) or the reader alone
        before = judge_triples(triples, read, nli, "cross-encoder")
        extremes = [judge_triples(triples, read, nli, "reader", t) for t in (0.0, 1.01)]
        rules = [("no direction stated: cross-encoder", before)] + [
            (
                f"no direction stated: reader ≥ {t:.2f}{' (shipped)' if t == READER_ALONE_MIN else ''}",
                at_threshold(*extremes, t),
            )
            for t in THRESHOLDS
        ]
        for name, judged in rules:
            by_direction: dict[int, list] = {c["id"]: [] for c in claims}
            for (cid, _, _, doc), direct in zip(items, judged, strict=True):
                by_direction[cid].append((direct.relation, direct.confidence, doc))
            report(name, gold, {c: _verdict(e) for c, e in by_direction.items()})


if __name__ == "__main__":
    main()
