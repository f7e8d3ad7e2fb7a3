"""Structured-abstract labels and referent-less subjects in the claims of the SciFact corpus.

Counts, over every abstract of ../shared/data/scifact/corpus.jsonl (5,183 abstracts):
- sentences that open with an all-caps section label ("RESULTS …", "CONCLUSIONS AND RELEVANCE …",
  or a label's tail "AND RELEVANCE …"), as the sentence splitter gives them (before) and as
  fragments and claims now hold them (after, ``lyra_core.sections.labelled_sentences``);
- the local extractor's claims that open with such a label (must be 0), and those whose subject
  points to another sentence (``lyra_core.claim_subjects.lacks_referent``: never adopted).

The label detector here is independent of Lyra's: an opening all-caps word that names a section.

    .venv/bin/python -m bench.section_labels [--show 10]
"""

from __future__ import annotations

import argparse
import re

from bench.common import read_jsonl, require_data
from lyra_core.claim_subjects import lacks_referent
from lyra_core.claims import extract_claims
from lyra_core.fragments import make_fragments, split_sentences
from lyra_core.sections import labelled_sentences

# An opening all-caps section word, alone or before more capitals ("MAIN OUTCOMES AND MEASURES").
OPENS_WITH_LABEL = re.compile(
    r"^(?:ABSTRACT\.)?(?:AND |OF )?(?:BACKGROUND|INTRODUCTION|CONTEXT|OBJECTIVES?|AIMS?|PURPOSE|METHODS?|DESIGN|"
    r"SETTINGS?|PARTICIPANTS|PATIENTS|SUBJECTS|INTERVENTIONS?|MAIN|MEASUREMENTS|EXPOSURES?|RESULTS?|FINDINGS|"
    r"CONCLUSIONS?|RELEVANCE|INTERPRETATION|IMPORTANCE|SIGNIFICANCE|FUNDING|TRIAL|DATA|RATIONALE|SUMMARY|"
    r"UNLABELLED|MATERIALS?|OUTCOMES?|STUDY|KEY|SEARCH|SELECTION)(?:\(S\))?(?![a-z0-9-])"
)


def opens_with_label(text: str) -> bool:
    return bool(OPENS_WITH_LABEL.match(text.lstrip()))


def measure(abstracts: list[str], show: int = 0) -> dict[str, int]:
    """The counts above for ``abstracts``; prints up to ``show`` examples of what is left."""
    counts = dict.fromkeys(
        [
            "sentences",
            "labelled_before",
            "labelled_after",
            "fragments_labelled",
            "claims",
            "claims_labelled",
            "claims_without_referent",
        ],
        0,
    )
    shown = 0
    for abstract in abstracts:
        raw = split_sentences(abstract)
        counts["sentences"] += len(raw)
        counts["labelled_before"] += sum(opens_with_label(s) for s in raw)
        left = [body for body, _ in labelled_sentences(abstract) if opens_with_label(body)]
        counts["labelled_after"] += len(left)
        counts["fragments_labelled"] += sum(
            any(opens_with_label(s) for s in split_sentences(f.text)) for f in make_fragments("p", abstract)
        )
        for claim in extract_claims(abstract):
            counts["claims"] += 1
            counts["claims_labelled"] += opens_with_label(claim.text)
            counts["claims_without_referent"] += lacks_referent(claim.text)
        for body in left:
            if shown < show:
                print("left:", body[:140])
                shown += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--show", type=int, default=0, help="print this many sentences still opening with a label"
    )
    args = parser.parse_args()
    corpus = require_data("scifact", "corpus.jsonl")
    abstracts = [" ".join(row["abstract"]) for row in read_jsonl(corpus)]
    for name, value in measure(abstracts, args.show).items():
        print(f"{name:>26}: {value}")


if __name__ == "__main__":
    main()
