"""Where the judge reads a paper: every two-sentence window (as ``bench.judge_abstracts``), or only
the window holding the sentence the evidence selector ranks first (``evidence.selector: on``), side by
side in one run on the same judged pairs (today's judge: the direction judge and the verifier).

- Evidence Inference v2 validation and test prompts as claims (``bench.judge_abstracts``' forms, one
  claim against another trial's abstract as NEI), split into prompts whose annotated evidence lies in
  the abstract (found by its text) and the rest.
- SciFact train claims (``--scifact N`` drawn by seed) against the papers they cite; the verifier was
  trained on these claims (in-sample for both columns alike), the selector never saw SciFact.

A claim's verdict is Lyra's: one vote per paper, the Beta update, the verdict words.

    .venv/bin/python -m bench.selected_windows [--prompts 100] [--scifact 200] [--seed 13]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from bench.common import SHARED_DATA, require_data, scifact_claim_label
from bench.judge_abstracts import Run, build_claims
from bench.verification import VERDICT_TO_LABEL, report
from lyra_core.fragments import make_fragments
from lyra_core.scoring import Evidence, ScoringRule, score_claim
from lyra_core.sentences import split_sentences
from lyra_resources.models.direction_judge import EdgeJudgement, direction_reader, judge_triples
from lyra_resources.models.evidence_selector import EvidenceSelector
from lyra_resources.models.inference import nli_model, set_threads
from lyra_resources.models.label_model import LabelModel
from lyra_training.selector_data import read_ei_v2

READER_MIN = 0.0  # evidence.reader_alone_min as config/settings.yaml ships it


def verdict(edges: list[EdgeJudgement], papers: list[str]) -> str:
    evidence = [
        Evidence(relation=e.relation, nli_confidence=e.confidence, page_id=p)
        for e, p in zip(edges, papers, strict=True)
    ]
    return VERDICT_TO_LABEL.get(score_claim(evidence, True, ScoringRule()).verdict, "NEI")


def compare(
    name: str,
    gold: dict[int, str],
    every: dict[int, str],
    selected: dict[int, str],
    ids: list[int],
    learned: dict[str, dict[int, str]] | None = None,
) -> None:
    report(f"{name}: every window", gold, {i: every[i] for i in ids})
    report(f"{name}: the selector's window", gold, {i: selected[i] for i in ids})
    for model, verdicts in (learned or {}).items():
        report(
            f"{name}: label model {model} on the selector's sentences", gold, {i: verdicts[i] for i in ids}
        )


def learned_verdicts(
    models: dict[str, LabelModel], claims: list[str], papers: list[list[str]]
) -> dict[str, dict[int, str]]:
    """Each label model's verdict on each claim from its reading of one paper (the selected sentences)."""
    rule = ScoringRule()
    out = {}
    for name, model in models.items():
        readings = model.read(claims, papers)
        out[name] = {
            i: VERDICT_TO_LABEL.get(
                score_claim([Evidence(relation=r.relation, nli_confidence=r.confidence)], True, rule).verdict,
                "NEI",
            )
            for i, r in enumerate(readings)
        }
    return out


def evidence_inference(
    folder: Path, split: str, args, selector: EvidenceSelector, models: dict[str, LabelModel]
) -> None:
    claims = build_claims(folder, split, args.prompts, args.seed)
    inside = {q.source.split(":", 1)[1] for q in read_ei_v2(folder, split) if q.gold}
    run = Run(folder, claims)
    edges = run.edges("reader", READER_MIN)
    windows: dict[int, list[int]] = {}
    for k, i in enumerate(run.owner):
        windows.setdefault(i, []).append(k)
    claim_ids = [i for i in range(len(claims)) if windows.get(i)]
    picks = [
        w
        for w, _ in selector.select_windows(
            [claims[i]["claim"] for i in claim_ids],
            [[run.triples[k][1] for k in windows[i]] for i in claim_ids],
        )
    ]
    every = {i: verdict(edges[i], [claims[i]["article"]] * len(edges[i])) for i in range(len(claims))}
    selected = {i: "NEI" for i in range(len(claims))}
    for i, pick in zip(claim_ids, picks, strict=True):
        selected[i] = verdict([edges[i][pick]], [claims[i]["article"]])
    gold = {i: c["gold"] for i, c in enumerate(claims)}
    learned = learned_verdicts(
        models, [c["claim"] for c in claims], [split_sentences(run.papers[c["article"]][1]) for c in claims]
    )
    prompts = {c["prompt"] for c in claims}
    print(
        f"Evidence Inference v2 {split}: {len(claims)} claims; of {len(prompts)} prompts, {len(prompts & inside)}"
    )
    print("  have their annotated evidence in the abstract")
    for part, keep in (
        ("evidence in the abstract", lambda c: c["prompt"] in inside),
        ("evidence elsewhere", lambda c: c["prompt"] not in inside),
        ("all", lambda c: True),
    ):
        ids = [i for i, c in enumerate(claims) if keep(c)]
        compare(f"{split}, {part}", gold, every, selected, ids, learned)


def scifact(args, selector: EvidenceSelector, models: dict[str, LabelModel]) -> None:
    data = SHARED_DATA / "scifact"
    with (data / "corpus.jsonl").open() as fh:
        corpus = {str(d["doc_id"]): d for d in map(json.loads, fh)}
    with (data / "claims_train.jsonl").open() as fh:
        every_claim = [json.loads(line) for line in fh]
    claims = random.Random(args.seed).sample(every_claim, min(args.scifact, len(every_claim)))
    gold = {}
    for i, c in enumerate(claims):
        gold[i] = scifact_claim_label(c)
    triples, owner = [], []
    for i, c in enumerate(claims):
        for d in map(str, c["cited_doc_ids"]):
            if d in corpus:
                text = " ".join(corpus[d]["abstract"])
                for f in make_fragments(d, text):
                    triples.append((c["claim"], f.text, f"{corpus[d]['title']} {text}"))
                    owner.append((i, d))
    reader, nli = direction_reader(), nli_model()
    edges = judge_triples(
        triples,
        lambda p: [r.model_dump() for r in reader.predict(p)],
        lambda p: [r.model_dump() for r in nli.predict(p)],
        "reader",
        READER_MIN,
    )
    groups: dict[tuple[int, str], list[int]] = {}
    for k, key in enumerate(owner):
        groups.setdefault(key, []).append(k)
    keys = list(groups)
    picks = [
        w
        for w, _ in selector.select_windows(
            [claims[i]["claim"] for i, _ in keys], [[triples[k][1] for k in groups[key]] for key in keys]
        )
    ]
    every, selected = {i: ([], []) for i in range(len(claims))}, {i: ([], []) for i in range(len(claims))}
    for (i, d), pick in zip(keys, picks, strict=True):
        ks = groups[(i, d)]
        every[i][0].extend(edges[k] for k in ks)
        every[i][1].extend([d] * len(ks))
        selected[i][0].append(edges[ks[pick]])
        selected[i][1].append(d)
    learned = {}
    rule = ScoringRule()
    for name, model in models.items():
        readings = model.read([claims[i]["claim"] for i, _ in keys], [corpus[d]["abstract"] for _, d in keys])
        by_claim: dict[int, list[Evidence]] = {i: [] for i in range(len(claims))}
        for (i, d), r in zip(keys, readings, strict=True):
            by_claim[i].append(Evidence(relation=r.relation, nli_confidence=r.confidence, page_id=d))
        learned[name] = {
            i: VERDICT_TO_LABEL.get(score_claim(ev, True, rule).verdict, "NEI") for i, ev in by_claim.items()
        }
    print(f"SciFact train: {len(claims)} claims, their cited papers")
    compare(
        "SciFact, cited papers",
        gold,
        {i: verdict(*every[i]) for i in every},
        {i: verdict(*selected[i]) for i in selected},
        list(range(len(claims))),
        learned,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompts", type=int, default=100)
    parser.add_argument("--scifact", type=int, default=200)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--label-model", type=Path, action="append", default=[], help="also the label model at this folder"
    )
    args = parser.parse_args()
    set_threads(args.threads)
    folder = require_data("nli_training", "evidence_inference")
    started = time.perf_counter()
    selector = EvidenceSelector()
    models = {path.name: LabelModel(path, selector) for path in args.label_model}
    for split in ("validation", "test"):
        evidence_inference(folder, split, args, selector, models)
    if args.scifact:
        scifact(args, selector, models)
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
