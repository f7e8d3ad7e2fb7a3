"""How well Lyra reads a study's size from a whole abstract: the randomised or enrolled total.

Labelled set: tests/data/sample_size_abstracts.jsonl, Evidence Inference abstracts (reports of
randomized trials) with the total a reader takes from them, labelled by hand (pmcid, expected,
why, split). The "tune" rows are abstracts whose reading changed while the rules were written and
were looked at then; the "report" rows are a seeded sample of other abstracts, labelled after the
rules were settled. Both halves are printed, with every miss.

    .venv/bin/python -m bench.sample_size
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.common import read_jsonl, require_data
from lyra_core.study_design import sample_size

LABELS = Path(__file__).resolve().parents[1] / "tests" / "data" / "sample_size_abstracts.jsonl"


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    folder = require_data("nli_training", "evidence_inference", "abstracts")
    halves: dict[str, list[tuple[str, int, int | None, str]]] = {"tune": [], "report": []}
    for row in read_jsonl(LABELS):
        text = " ".join((folder / f"{row['pmcid']}.abst").read_text(errors="replace").split())
        half = row["split"]
        halves[half].append((row["pmcid"], row["expected"], sample_size(text), row["why"]))
    for half, rows in halves.items():
        right = sum(expected == read for _, expected, read, _ in rows)
        print(f"== {half} half: {right}/{len(rows)} abstracts read to their whole study's size")
        for pmcid, expected, read, why in rows:
            if expected != read:
                print(f"  {pmcid}: expected {expected}, read {read} ({why})")


if __name__ == "__main__":
    main()
