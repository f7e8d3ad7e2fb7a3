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

from bench.common import require_data
from lyra_resources.models.direction_judge import direction_reader, judge_triples
from lyra_resources.models.inference import nli_model, set_threads
from lyra_training.finding_forms import Topic, generated_pairs
from lyra_training.selector_data import read_linearized

READER_MIN = 0.0  # evidence.reader_alone_min as config/settings.yaml ships it


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-topic", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
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
    right, total = Counter(), Counter()
    for p, j in zip(pairs, judged, strict=True):
        form = p.form
        total[form] += 1
        right[form] += j.relation == p.label
    print(f"{len(pairs)} generated pairs on {len(topics)} Evidence Inference test topics (seed {args.seed})")
    for form in sorted(total):
        print(f"  {form:<16} {right[form] / total[form]:.3f} of {total[form]}")
    print(f"  {'all':<16} {sum(right.values()) / sum(total.values()):.3f} of {sum(total.values())}")
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
