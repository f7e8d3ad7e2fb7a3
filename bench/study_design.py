"""How well Lyra reads a paper's study design from its title and abstract.

Labelled set (silver, from ../shared/data):
- PubMedQA (labelled part, 1,000 abstracts): the label comes from the MeSH terms the indexers gave
  the paper ("Randomized Controlled Trials as Topic", "Random Allocation", "Double-Blind Method" →
  RCT; "Animals" without "Humans", or cultured cells → animal/cell; "Case-Control Studies" →
  case-control; "Cross-Sectional Studies" or a survey → cross-sectional; "Cohort", "Prospective",
  "Retrospective", "Longitudinal", "Follow-Up Studies" → cohort); papers with no design term, or
  with terms of two designs that exclude each other, are left out. The abstract is rebuilt from
  its labelled contexts plus its conclusion; PubMedQA has no titles, and its question (written
  from the title) stands in for one.
- Evidence Inference (abstracts of reports of randomized trials): a seeded sample, labelled RCT.
Each item goes to the tune or the test half by a seeded hash of its id (lyra_core.splits); the
rules were tuned on the tune half only. A third table scores tests/data/study_designs.jsonl,
SciFact corpus abstracts labelled by hand (doc id, label, why), the only source of meta-analyses
and narrative reviews here.

    .venv/bin/python -m bench.study_design [--show-errors 20] [--rct-sample 150]

prints per-class precision and recall, accuracy and a confusion matrix for each part.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter
from pathlib import Path

from pydantic import BaseModel

from bench.common import read_jsonl, require_data
from lyra_core.splits import is_held_out
from lyra_core.study_design import DESIGNS, GRADED_AS, read_design

SEED = 20240611
HAND_LABELS = Path(__file__).resolve().parents[1] / "tests" / "data" / "study_designs.jsonl"
_RCT_MESH = {
    "Randomized Controlled Trials as Topic",
    "Random Allocation",
    "Double-Blind Method",
    "Single-Blind Method",
    "Cross-Over Studies",
}
_CELL_MESH = {
    "Cells, Cultured",
    "Cell Line",
    "Cell Line, Tumor",
    "Tumor Cells, Cultured",
    "In Vitro Techniques",
}
_COHORT_MESH = {
    "Cohort Studies",
    "Prospective Studies",
    "Retrospective Studies",
    "Longitudinal Studies",
    "Follow-Up Studies",
}
_SURVEY_MESH = {"Surveys and Questionnaires", "Health Surveys", "Health Care Surveys", "Nutrition Surveys"}


class Item(BaseModel):
    key: str
    source: str
    title: str
    abstract: str
    design: str
    why: str = ""


def pubmedqa_label(mesh: set[str]) -> str | None:
    """The design MeSH terms name, or None where they name none or two that exclude each other."""
    if "Animals" in mesh and "Humans" not in mesh:
        return "animal_cell"
    if mesh & _RCT_MESH:
        return "rct"
    if "Case-Control Studies" in mesh:
        return "case_control"
    if "Cross-Sectional Studies" in mesh:
        return (
            None
            if mesh & {"Cohort Studies", "Prospective Studies", "Longitudinal Studies"}
            else "cross_sectional"
        )
    if mesh & _COHORT_MESH:
        return "cohort"
    if mesh & _SURVEY_MESH:
        return "cross_sectional"
    if mesh & _CELL_MESH:
        return "animal_cell"
    return None


def pubmedqa_items() -> list[Item]:
    data = json.loads(require_data("nli_training", "pubmedqa_pqal", "ori_pqal.json").read_text())
    items = []
    for pmid, row in data.items():
        label = pubmedqa_label(set(row["MESHES"]))
        if label is None:
            continue
        parts = [f"{head}: {text}" for head, text in zip(row["LABELS"], row["CONTEXTS"], strict=True)]
        abstract = " ".join([*parts, f"CONCLUSIONS: {row['LONG_ANSWER']}"])
        items.append(
            Item(
                key=f"pubmedqa:{pmid}",
                source="pubmedqa",
                title=row["QUESTION"],
                abstract=abstract,
                design=label,
            )
        )
    return items


def evidence_inference_items(sample: int) -> list[Item]:
    folder = require_data("nli_training", "evidence_inference", "abstracts")
    paths = sorted(folder.glob("*.abst"))
    items = []
    for path in random.Random(SEED).sample(paths, min(sample, len(paths))):
        text = path.read_text(errors="replace")
        title = re.search(r"TITLE:\s*(.*?)\n\s*\n", text, re.DOTALL)
        body = text[title.end() :] if title else text
        abstract = " ".join(re.sub(r"ABSTRACT\.([A-Z &/]+):", r"\1:", body).split())
        items.append(
            Item(
                key=f"evidence_inference:{path.stem}",
                source="evidence_inference",
                title=" ".join(title.group(1).split()) if title else "",
                abstract=abstract,
                design="rct",
            )
        )
    return items


def hand_items() -> list[Item]:
    corpus = {d["doc_id"]: d for d in read_jsonl(require_data("scifact", "corpus.jsonl"))}
    items = []
    for row in read_jsonl(HAND_LABELS):
        doc = corpus[row["doc_id"]]
        items.append(
            Item(
                key=f"scifact:{row['doc_id']}",
                source="scifact (hand)",
                title=doc["title"],
                abstract=" ".join(doc["abstract"]),
                design=row["design"],
                why=row["why"],
            )
        )
    return items


def report(name: str, items: list[Item], show_errors: int, coarse: bool = False) -> float:
    """Per-class precision and recall; ``coarse`` scores a registry study as a cohort and human cells as
    cells, for labels (MeSH terms) that do not tell them apart."""
    gold = [i.design for i in items]
    readings = [read_design(i.title, i.abstract) for i in items]
    guess = [GRADED_AS.get(r.design, r.design) if coarse else r.design for r in readings]
    right = sum(g == p for g, p in zip(gold, guess, strict=True))
    accuracy = right / len(items) if items else float("nan")
    print(f"\n== {name}: {len(items)} abstracts, accuracy {accuracy:.3f}")
    print(f"{'design':<16}{'gold':>6}{'said':>6}{'prec':>7}{'recall':>8}")
    said, truth, hits = (
        Counter(guess),
        Counter(gold),
        Counter(g for g, p in zip(gold, guess, strict=True) if g == p),
    )
    for d in DESIGNS:
        if not truth[d] and not said[d]:
            continue
        prec = f"{hits[d] / said[d]:.2f}" if said[d] else "-"
        rec = f"{hits[d] / truth[d]:.2f}" if truth[d] else "-"
        print(f"{d:<16}{truth[d]:>6}{said[d]:>6}{prec:>7}{rec:>8}")
    shown = [d for d in DESIGNS if truth[d] or said[d]]
    pairs = Counter(zip(gold, guess, strict=True))
    print("confusion (rows gold, columns read)")
    print(f"{'':<16}" + " ".join(f"{d[:6]:>6}" for d in shown))
    for g in shown:
        print(f"{g:<16}" + " ".join(f"{pairs[(g, p)]:>6}" for p in shown))
    errors = [(i, r) for i, r, g in zip(items, readings, guess, strict=True) if i.design != g]
    for item, reading in errors[:show_errors]:
        print(
            f"  {item.key}: gold {item.design}, read {reading.design} — {reading.reason()} | {item.title[:90]}"
        )
    return accuracy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--rct-sample", type=int, default=150, help="Evidence Inference abstracts to add as RCTs"
    )
    parser.add_argument("--show-errors", type=int, default=0, help="errors to list, from the tune half only")
    parser.add_argument("--show-test-errors", action="store_true", help="list the test half's errors too")
    args = parser.parse_args()
    silver = pubmedqa_items() + evidence_inference_items(args.rct_sample)
    tune = [i for i in silver if not is_held_out(i.key, 0.5, SEED)]
    test = [i for i in silver if is_held_out(i.key, 0.5, SEED)]
    print(
        f"silver set: {len(silver)} ({Counter(i.source for i in silver)}); labels {Counter(i.design for i in silver)}"
    )
    report("tune half (silver)", tune, args.show_errors, coarse=True)
    report("test half (silver)", test, args.show_errors if args.show_test_errors else 0, coarse=True)
    report("hand-labelled SciFact abstracts", hand_items(), args.show_errors if args.show_test_errors else 0)


if __name__ == "__main__":
    main()
