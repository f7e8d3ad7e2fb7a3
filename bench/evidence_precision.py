"""Evidence precision on SciFact train claims: of the passages ``lyra verify`` shows as a claim's
strongest for and against, the share that are annotated rationales with that label.

For each claim, as ``lyra verify`` judges it (the ``nli_edges`` asset's steps, in one process):
- *retrieved*: the 10 best BM25 papers of the 5,183-abstract corpus; their fragments (two-sentence
  windows, ``lyra_core.fragments``) that the sentence-role model reads as findings
  (``evidence.min_finding``); the ``evidence.verify_top_k`` most similar to the claim;
- *oracle*: every finding fragment of the papers the claim cites (up to ``verify_max_fragments``).
Each pair is judged by Lyra's judge (``lyra_resources.models.direction_judge.DirectionJudge``, the
shipped models), a pair far from the claim (cosine under ``evidence.min_similarity``) is NEUTRAL,
and the claim's strongest SUPPORTS edge (highest ``p_supports``) and strongest REFUTES edge
(highest ``p_refutes``) are the passages shown. A shown passage is right when it holds a sentence the
annotators marked as a rationale with that label (SUPPORTS ↔ SUPPORT, REFUTES ↔ CONTRADICT) in
that paper; a claim with no annotated evidence (NEI) has none, so any passage shown for it is wrong.

Claims are split 5-fold by claim group (``lyra_core.splits.claim_folds``: claims citing a common
paper share a fold) and the precision is given per fold and pooled. Nothing is fitted here: the
folds show how much the figure moves between disjoint sets of claims. The shipped verifier was
trained on SciFact train claims, so on the pairs the cross-encoder decides the figure is optimistic.
``--claims`` draws that many claims per fold with ``--seed`` (all: ``--claims 0``).

The drawn claims are also split in two halves by claim group (a tuning half, where rules may be
chosen, and a check half, where they are only scored), printed side by side; ``--passages FILE``
writes every shown passage (claim, half, setting, label, gold, reason) as JSON lines for reading.

    .venv/bin/python -m bench.evidence_precision [--claims 12] [--seed 13] [--threads 2] [--home DIR]
                                                 [--passages FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from bench.common import read_jsonl, require_data
from bench.verification import GOLD_ID, ClaimEvidence
from lyra_core.splits import claim_folds
from lyra_resources.home import resolve_home
from lyra_resources.models.claim_roles import claim_role_model
from lyra_resources.models.direction_judge import DirectionJudge
from lyra_resources.models.inference import set_threads
from lyra_resources.settings.loading import load_settings

GOLD_OF = {"SUPPORTS": GOLD_ID["SUPPORT"], "REFUTES": GOLD_ID["CONTRADICT"]}
PAPERS = 10  # BM25 papers per claim, as bench.verification retrieves them


def finding_fragments(evidence: ClaimEvidence, docs: list[str], min_finding: float) -> list[tuple[str, str]]:
    """(doc, fragment text) of ``docs`` that the sentence-role model reads as findings, as
    ``nli_edges`` gates them (the fragment's place in its abstract is one of the model's inputs)."""
    pairs = [
        (d, t, (i + 0.5) / len(w)) for d in docs for w in [evidence.fragments_of(d)] for i, t in enumerate(w)
    ]
    if not pairs:
        return []
    probs = claim_role_model().probabilities(
        [t for _, t, _ in pairs], evidence.encode([t for _, t, _ in pairs]), [p for _, _, p in pairs]
    )
    return [(d, t) for (d, t, _), p in zip(pairs, probs, strict=True) if p >= min_finding]


class ShownPassage(NamedTuple):
    """One passage shown for a claim: its relation, its gold id (1 SUPPORT, 0 CONTRADICT, 2 none),
    and what a reader of the bench needs to see why it was shown."""

    relation: str
    gold: int
    doc: str
    text: str
    probability: float
    reason: str


def shown(
    evidence: ClaimEvidence,
    judge: DirectionJudge,
    claim: dict,
    candidates: list[tuple[str, str]],
    limit: int,
    min_similarity: float,
) -> list[ShownPassage]:
    """The claim's strongest SUPPORTS and strongest REFUTES passage among its ``limit`` most similar
    ``candidates``."""
    if not candidates:
        return []
    sims = evidence.encode([t for _, t in candidates]) @ evidence.encode([claim["claim"]])[0]
    order = [int(j) for j in np.argsort(-sims, kind="stable")[:limit]]
    paper = {
        d: f"{evidence.raw[int(d)]['title']} {' '.join(evidence.raw[int(d)]['abstract'])}"
        for d, _ in candidates
    }
    results = judge.judge_pairs([(claim["claim"], candidates[j][1], paper[candidates[j][0]]) for j in order])
    out = []
    for relation, column in (("SUPPORTS", "p_supports"), ("REFUTES", "p_refutes")):
        judged = [
            (getattr(r, column), j, r)
            for r, j in zip(results, order, strict=True)
            if r.relation == relation and sims[j] >= min_similarity
        ]
        if judged:
            p, j, result = max(judged, key=lambda pj: (pj[0], -pj[1]))
            doc, text = candidates[j]
            out.append(
                ShownPassage(relation, evidence.label_of(claim, doc, text), doc, text, p, result.reason)
            )
    return out


def precision(rows: Sequence[tuple]) -> float:
    """Share of (relation, gold, ...) rows whose gold is the relation's label."""
    return sum(GOLD_OF[row[0]] == row[1] for row in rows) / len(rows) if rows else float("nan")


def summary(rows: list[ShownPassage]) -> str:
    by_side = {rel: precision([x for x in rows if x.relation == rel]) for rel in GOLD_OF}
    return (
        f"{precision(rows):.3f} of {len(rows)} (Supports {by_side['SUPPORTS']:.3f}, "
        f"Refutes {by_side['REFUTES']:.3f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--claims", type=int, default=12, help="claims drawn per fold (0: every claim)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--home", default=None, help="where the corpus index and embeddings are cached")
    parser.add_argument("--passages", default=None, help="write every shown passage here as JSON lines")
    args = parser.parse_args()
    set_threads(args.threads)
    data, home = require_data("scifact"), resolve_home(args.home)
    cfg = load_settings().evidence
    started = time.perf_counter()
    claims = read_jsonl(data / "claims_train.jsonl")
    fold_of = claim_folds(
        [{"id": c["id"], "cited_doc_ids": c["cited_doc_ids"]} for c in claims], 5, args.seed
    )
    rng = random.Random(args.seed)
    folds = [[c for c in claims if fold_of[c["id"]] == k] for k in range(5)]
    drawn = [
        sorted(rng.sample(f, min(args.claims, len(f))) if args.claims else f, key=lambda c: c["id"])
        for f in folds
    ]
    evidence = ClaimEvidence(data, home, PAPERS, cfg.verify_top_k)
    judge = DirectionJudge()
    # the tuning and check halves: by claim group, as the folds, so no cited paper is on both sides
    half_of = claim_folds(
        [{"id": c["id"], "cited_doc_ids": c["cited_doc_ids"]} for m in drawn for c in m], 2, args.seed
    )
    rows: dict[str, list[list[ShownPassage]]] = {
        "retrieved": [[] for _ in folds],
        "oracle": [[] for _ in folds],
    }
    halves: dict[str, list[list[ShownPassage]]] = {"retrieved": [[], []], "oracle": [[], []]}
    log = open(args.passages, "w") if args.passages else None  # noqa: SIM115 (closed below)
    for k, members in enumerate(drawn):
        for claim in members:
            docs = [h.source_id for h in evidence.corpus.search(claim["claim"], limit=PAPERS)]
            cited = [str(d) for d in claim["cited_doc_ids"] if str(d) in evidence.index_of]
            for mode, papers, limit in (
                ("retrieved", docs, cfg.verify_top_k),
                ("oracle", cited, cfg.verify_max_fragments),
            ):
                passages = shown(
                    evidence,
                    judge,
                    claim,
                    finding_fragments(evidence, papers, cfg.min_finding),
                    limit,
                    cfg.min_similarity,
                )
                rows[mode][k] += passages
                halves[mode][half_of[claim["id"]]] += passages
                for x in passages if log else []:
                    log.write(
                        json.dumps(
                            {
                                "claim_id": claim["id"],
                                "claim": claim["claim"],
                                "mode": mode,
                                "half": ("tuning", "check")[half_of[claim["id"]]],
                                "right": GOLD_OF[x.relation] == x.gold,
                                **x._asdict(),
                            }
                        )
                        + "\n"
                    )
    if log:
        log.close()
    total = sum(len(m) for m in drawn)
    print(
        f"SciFact train: {total} claims ({args.claims or 'all'} per fold, seed {args.seed}), 5 folds by claim group; "
        f"{time.perf_counter() - started:.0f} s"
    )
    for mode in ("retrieved", "oracle"):
        per_fold = [precision(r) for r in rows[mode]]
        scored = [p for p in per_fold if p == p]  # a fold where nothing was shown has no precision
        pooled = [x for r in rows[mode] for x in r]
        by_side = {rel: precision([x for x in pooled if x[0] == rel]) for rel in GOLD_OF}
        spread = statistics.stdev(scored) if len(scored) > 1 else 0.0
        mean = statistics.mean(scored) if scored else float("nan")
        print(
            f"  {mode:<9} evidence precision {precision(pooled):.3f} ({len(pooled)} passages shown; "
            f"Supports {by_side['SUPPORTS']:.3f}, Refutes {by_side['REFUTES']:.3f}); per fold "
            + " ".join(f"{p:.2f}" for p in per_fold)
            + f" (mean {mean:.3f} ± {spread:.3f})"
        )
        tuning, check = halves[mode]
        print(f"  {'':<9} tuning half {summary(tuning)} | check half {summary(check)}")


if __name__ == "__main__":
    main()
