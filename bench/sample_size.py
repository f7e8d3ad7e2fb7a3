"""How well Lyra reads a study's size (and design) from a whole abstract: the randomised or enrolled total.

Two labelled sets, both printed with every miss:

- tests/data/sample_size_abstracts.jsonl: Evidence Inference abstracts (reports of randomized
  trials) with the total a reader takes from them, labelled by hand (pmcid, expected, why, split).
  The "tune" rows are abstracts whose reading changed while the rules were written; the "report"
  rows are a seeded sample of other abstracts, labelled after the rules were settled.
- tests/data/scifact_study_sizes.jsonl: SciFact corpus abstracts of every kind (trials, cohorts,
  surveys, registries, laboratory work), labelled by hand with the whole study's size (None where
  the abstract states none) and its design. They were drawn by ``drawn_doc_ids``: the abstracts
  with a count of people or an "n =" (``SIZE_WORDS``), 90 of them by a seeded sample. Rows marked
  ``size_unclear`` (groups that may overlap, no total) count for the design only. Even doc ids are
  the tune half, the one looked at while the rules were written; odd doc ids are reported.

``--baseline REV`` reads the same abstracts with ``lyra_core`` as it was at git revision ``REV``
(exported to a temporary folder and run in a subprocess) and prints both side by side.

    .venv/bin/python -m bench.sample_size [--baseline REV] [--misses]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from bench.common import read_jsonl, require_data
from lyra_core.study_design import read_design, sample_size

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "tests" / "data" / "sample_size_abstracts.jsonl"
SCIFACT_LABELS = ROOT / "tests" / "data" / "scifact_study_sizes.jsonl"
SEED = 55
DRAWN = 90
# An abstract that states how many people it studied: "1,234 patients", "n = 60".
SIZE_WORDS = re.compile(
    r"\b\d[\d,]*\s+(?:[A-Za-z-]+\s+){0,3}?(?:patients|participants|subjects|women|men|children|adults|"
    r"individuals|persons|people|respondents|infants|volunteers)\b|\b[nN]\s*=\s*\d"
)


def drawn_doc_ids(corpus: dict[int, dict]) -> list[int]:
    """The SciFact abstracts the labelled sample was drawn as: a seeded sample of those that state a count."""
    matching = sorted(i for i, d in corpus.items() if SIZE_WORDS.search(" ".join(d["abstract"])))
    return random.Random(SEED).sample(matching, DRAWN)


def evidence_inference_rows() -> list[dict]:
    folder = require_data("nli_training", "evidence_inference", "abstracts")
    rows = []
    for row in read_jsonl(LABELS):
        text = " ".join((folder / f"{row['pmcid']}.abst").read_text(errors="replace").split())
        rows.append(
            {
                "key": row["pmcid"],
                "half": f"EI {row['split']}",
                "size": row["expected"],
                "read": sample_size(text),
            }
        )
    return rows


def scifact_rows() -> list[dict]:
    corpus = {d["doc_id"]: d for d in read_jsonl(require_data("scifact", "corpus.jsonl"))}
    labels = read_jsonl(SCIFACT_LABELS)
    if [r["doc_id"] for r in labels] != drawn_doc_ids(corpus):
        print("warning: the SciFact labels are not the seeded draw", file=sys.stderr)
    rows = []
    for row in labels:
        doc = corpus[row["doc_id"]]
        abstract = " ".join(doc["abstract"])
        rows.append(
            {
                "key": str(row["doc_id"]),
                "half": "SciFact tune (even)" if row["doc_id"] % 2 == 0 else "SciFact report (odd)",
                "size": None if row.get("size_unclear") else row["size"],
                "unclear": bool(row.get("size_unclear")),
                "read": sample_size(abstract),
                "design": row["design"],
                "design_read": read_design(doc["title"], abstract).design,
            }
        )
    return rows


def measure() -> list[dict]:
    return evidence_inference_rows() + scifact_rows()


def baseline(revision: str) -> list[dict]:
    """The same readings with ``lyra_core`` as it was at ``revision`` (this bench's own code as it is now)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", revision, "lyra_core"],
        check=True,
        capture_output=True,
    ).stdout
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        run = (
            f"import runpy, sys; sys.path.insert(0, {folder!r}); "
            "runpy.run_module('bench.sample_size', run_name='__main__')"
        )
        done = subprocess.run(
            [sys.executable, "-c", run, "--json"], cwd=ROOT, check=True, capture_output=True, text=True
        )
    return json.loads(done.stdout)


def _scores(rows: list[dict]) -> dict[str, tuple[int, int, int, int]]:
    """Per half: sizes right, sizes scored, designs right, designs scored."""
    out: dict[str, tuple[int, int, int, int]] = {}
    for half in dict.fromkeys(r["half"] for r in rows):
        mine = [r for r in rows if r["half"] == half]
        sized = [r for r in mine if not r.get("unclear")]
        designed = [r for r in mine if "design" in r]
        out[half] = (
            sum(r["size"] == r["read"] for r in sized),
            len(sized),
            sum(r["design"] == r["design_read"] for r in designed),
            len(designed),
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--baseline", metavar="REV", help="also read the abstracts with lyra_core at this revision"
    )
    parser.add_argument("--misses", action="store_true", help="list every miss of the current reading")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    now = measure()
    if args.json:
        print(json.dumps(now))
        return
    runs = [("before", baseline(args.baseline)), ("after", now)] if args.baseline else [("now", now)]
    print(f"{'half':<22}{'reading':<8}{'sizes right':>14}{'designs right':>16}")
    scored = [(name, _scores(rows)) for name, rows in runs]
    for half in sorted(scored[-1][1]):
        for name, scores in scored:
            size_ok, sized, design_ok, designed = scores[half]
            designs = f"{design_ok}/{designed}" if designed else "-"
            print(f"{half:<22}{name:<8}{f'{size_ok}/{sized}':>14}{designs:>16}")
    if args.misses or not args.baseline:
        before = {r["key"]: r for r in runs[0][1]} if args.baseline else {}
        for row in now:
            old = before.get(row["key"], {})
            if not row.get("unclear") and row["size"] != row["read"]:
                was = f" (was {old['read']})" if old else ""
                print(
                    f"  size   {row['half']:<22} {row['key']}: expected {row['size']}, read {row['read']}{was}"
                )
            if "design" in row and row["design"] != row["design_read"]:
                was = f" (was {old['design_read']})" if old else ""
                print(
                    f"  design {row['half']:<22} {row['key']}: expected {row['design']}, "
                    f"read {row['design_read']}{was}"
                )


if __name__ == "__main__":
    main()
