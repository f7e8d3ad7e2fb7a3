"""The direction a finding reports, read three ways side by side on Evidence Inference v2 (the
annotated evidence span given, its intervention, comparator and outcome as the question):

- *rules*: the figures and the words alone (``lyra_core.direction.passage.read_passage``; a span
  the rules cannot read counts as no difference);
- *reader*: the learned direction reader alone (``lyra-direction-minilm-l6``);
- *judge*: what Lyra uses, the reader's probabilities unless the figures or a comparator named
  first decide (``lyra_core.direction.verdict.passage_distribution``).

Validation articles are the side the combination was chosen on; test articles are the held-out
score. Macro-F1 over increased / decreased / no difference.

    .venv/bin/python -m bench.direction_reading [--reader DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.common import require_data
from lyra_core.direction.passage import read_passage
from lyra_core.direction.verdict import passage_distribution
from lyra_core.training_metrics import macro_f1
from lyra_resources.models.direction_judge import direction_reader
from lyra_resources.models.model_files import DEFAULT_DIRECTION_DIR
from lyra_training.direction_data import evaluation_pairs, read_findings

DIRECTIONS = ("increased", "decreased", "no_difference")


def _best(probs: dict[str, float]) -> str:
    return max(DIRECTIONS, key=lambda k: probs[k])


def score_split(folder: Path, split: str, reader_dir: Path) -> dict[str, float]:
    findings = read_findings(folder, split)
    pairs = evaluation_pairs(findings)
    predictions = direction_reader(reader_dir).predict([(p.premise, p.hypothesis) for p in pairs])
    gold = [f.label for f in findings]
    rules, reader, judge = [], [], []
    for finding, prediction in zip(findings, predictions, strict=True):
        reading = read_passage(finding.span, finding.intervention, finding.outcome)
        rules.append(reading.direction or "no_difference")
        reader.append(_best(prediction.probs))
        judge.append(_best(passage_distribution(prediction.probs, reading)))
    return {
        "pairs": len(gold),
        "rules": macro_f1(gold, rules),
        "reader": macro_f1(gold, reader),
        "judge": macro_f1(gold, judge),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reader", type=Path, default=DEFAULT_DIRECTION_DIR)
    args = parser.parse_args()
    folder = require_data("nli_training", "evidence_inference")
    print(f"direction reading on Evidence Inference v2, reader {args.reader.name}; macro-F1")
    print(f"  {'split':<11} {'pairs':>5}  {'rules':>6}  {'reader':>6}  {'judge':>6}")
    for split in ("validation", "test"):
        row = score_split(folder, split, args.reader)
        print(
            f"  {split:<11} {row['pairs']:>5}  {row['rules']:>6.3f}  {row['reader']:>6.3f}  {row['judge']:>6.3f}"
        )


if __name__ == "__main__":
    main()
