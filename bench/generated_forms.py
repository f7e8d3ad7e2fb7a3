"""Today's judge on findings written the way abstracts state them (``lyra_training.finding_forms``):
ratios with 95 % intervals above, below or across 1, events per arm with Fisher's p, means per arm,
sentences that compare nothing, each against a claim in some direction (the comparator sometimes
swapped into the subject), on the topics of Evidence Inference *test* prompts (the generated training
side draws its topics from train prompts only). Accuracy of the judge's relation per form and overall.

    .venv/bin/python -m bench.generated_forms [--per-topic 2] [--seed 7] [--threads 2]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from bench.common import require_data
from lyra_resources.models.direction_judge import direction_reader, judge_triples
from lyra_resources.models.inference import nli_model, set_threads
from lyra_resources.models.label_model import LabelModel
from lyra_training.finding_forms import Topic, generated_pairs
from lyra_training.selector_data import read_linearized

READER_MIN = 0.0  # evidence.reader_alone_min as config/settings.yaml ships it


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-topic", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--label-model", type=Path, action="append", default=[], help="also the label model at this folder"
    )
    args = parser.parse_args()
    set_threads(args.threads)
    path = require_data("nli_training", "evidence_inference_linearized", "test_wlabels.csv")
    started = time.perf_counter()
    topics = {
        (q.intervention, q.comparator, q.outcome): Topic(
            intervention=q.intervention, comparator=q.comparator, outcome=q.outcome
        )
        for q in read_linearized(path)
    }
    pairs = generated_pairs(list(topics.values()), args.per_topic, args.seed)
    reader, nli = direction_reader(), nli_model()
    judged = judge_triples(
        [(p.claim, p.passage, p.passage) for p in pairs],
        lambda batch: [r.model_dump() for r in reader.predict(batch)],
        lambda batch: [r.model_dump() for r in nli.predict(batch)],
        "reader",
        READER_MIN,
    )
    print(f"{len(pairs)} generated pairs on {len(topics)} Evidence Inference test topics (seed {args.seed})")
    columns = {"today's judge": [j.relation for j in judged]}
    for path in args.label_model:
        model = LabelModel(path)
        columns[path.name] = [
            r.relation for r in model.judge([p.claim for p in pairs], [p.passage for p in pairs])
        ]
    print(f"  {'form':<16} " + " ".join(f"{name:>14}" for name in columns) + "  pairs")
    total = Counter(p.form for p in pairs)
    right = {
        name: Counter(p.form for p, r in zip(pairs, rel, strict=True) if r == p.label)
        for name, rel in columns.items()
    }
    for form in [*sorted(total), "all"]:
        n = sum(total.values()) if form == "all" else total[form]
        cells = [(sum(r.values()) if form == "all" else r[form]) / n for r in right.values()]
        print(f"  {form:<16} " + " ".join(f"{c:>14.3f}" for c in cells) + f"  {n}")
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
