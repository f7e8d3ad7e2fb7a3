"""How many findings the rules read from their figures, and how often the direction read is right, on
every annotated evidence span of Evidence Inference v2 that holds a number (its intervention, comparator
and outcome as the question):

- *figures read*: the share of spans whose figures show a direction (a ratio or a difference against
  its interval or p-value, two arms with which arm is which, a comparison stated not significant),
  and the share of those read right (increased / decreased / no difference);
- *rules read*: the same for the rule reading as a whole (figures, then the words:
  ``lyra_core.direction.passage.read_passage``).

Train and validation articles are the side the rules are steered by; test articles are held out.
``--baseline REV`` reads the same spans with ``lyra_core`` as it was at git revision ``REV`` (exported
to a temporary folder and run in a subprocess) and prints both side by side.

    .venv/bin/python -m bench.figure_reading [--baseline main]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from bench.common import require_data
from lyra_core.direction.passage import read_passage
from lyra_training.direction_data import Finding, read_findings

SIDES = {"train+validation": ("train", "validation"), "test": ("test",)}
# a number of its own, not a digit that ends a name ("COVID-19", "IL-6", "omega-3")
_NUMBER = re.compile(r"(?<![A-Za-z\d-])\d+(?:[.,·]\d+)?")


def holds_a_number(span: str) -> bool:
    return bool(_NUMBER.search(span))


def score(findings: list[Finding]) -> dict[str, float]:
    """Shares read and right among those read, by the figures alone and by the rules as a whole."""
    figures_read = figures_right = rules_read = rules_right = 0
    for finding in findings:
        reading = read_passage(finding.span, finding.intervention, finding.outcome)
        if (
            reading.source == "figures"
        ):  # the figures show a direction (then turned round where the arms say so)
            figures_read += 1
            figures_right += reading.direction == finding.label
        if reading.direction is not None:
            rules_read += 1
            rules_right += reading.direction == finding.label
    n = len(findings) or 1
    return {
        "spans": len(findings),
        "figures_read": figures_read / n,
        "figures_right": figures_right / max(1, figures_read),
        "rules_read": rules_read / n,
        "rules_right": rules_right / max(1, rules_read),
    }


def measure(folder: Path) -> dict[str, dict[str, float]]:
    out = {}
    for side, splits in SIDES.items():
        findings = [f for split in splits for f in read_findings(folder, split) if holds_a_number(f.span)]
        out[side] = score(findings)
    return out


def baseline(revision: str) -> dict[str, dict[str, float]]:
    """The same measure with ``lyra_core`` as it was at ``revision`` (this bench's own code as it is now)."""
    root = Path(__file__).resolve().parent.parent
    archive = subprocess.run(
        ["git", "-C", str(root), "archive", "--format=tar", revision, "lyra_core"],
        check=True,
        capture_output=True,
    ).stdout
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        # the exported lyra_core first on the path, ahead of the working directory's
        run = (
            f"import runpy, sys; sys.path.insert(0, {folder!r}); "
            "runpy.run_module('bench.figure_reading', run_name='__main__')"
        )
        done = subprocess.run(
            [sys.executable, "-c", run, "--json"], cwd=root, check=True, capture_output=True, text=True
        )
    return json.loads(done.stdout)


def _row(name: str, side: str, figures: dict[str, float]) -> str:
    return (
        f"  {name:<9} {side:<17} {figures['spans']:>5}  {figures['figures_read']:>6.1%}  "
        f"{figures['figures_right']:>6.1%}"
        f"  {figures['rules_read']:>6.1%}  {figures['rules_right']:>6.1%}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--baseline", metavar="REV", help="also read the spans with lyra_core at this git revision"
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    now = measure(require_data("nli_training", "evidence_inference"))
    if args.json:
        print(json.dumps(now))
        return
    rows = [("before", baseline(args.baseline)), ("after", now)] if args.baseline else [("now", now)]
    print("figures and findings read on Evidence Inference v2 spans that hold a number")
    print(
        f"  {'reading':<9} {'side':<17} {'spans':>5}  {'fig.read':>6}  {'right':>6}  {'rules':>6}  {'right':>6}"
    )
    for side in SIDES:
        for name, figures in rows:
            print(_row(name, side, figures[side]))


if __name__ == "__main__":
    main()
