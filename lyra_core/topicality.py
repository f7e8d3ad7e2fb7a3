"""Which votes are on topic: evidence about what the claim asks, the only kind that enters its score.

A passage votes on a claim only where it reports a finding about the claim's exposure and outcome
(docs/scoring.md#on-topic-votes). What an edge carries decides:

- a person's review: on topic (the relation is theirs);
- the direction judge: the passage (or its paper) names the claim's exposure and outcome
  (``exposure_matched``, ``outcome_matched``). A direction the reader alone reads where no word or
  figure states one (its reason starts "the direction reader reads") votes as
  ``evidence.reader_alone_min`` allows: leaving such readings out cost 2–4 points of macro-F1 on
  held-out Evidence Inference prompts and SciFact claims (docs/direction.md), though on real answers
  some of them are wrong (a tumour cell line's "cell death" read as higher mortality with statins);
- the cross-encoder: the similarity gate already left a passage far from the claim neutral, and it
  reads no parts to check, so its votes stand.

An off-topic edge stays in the graph with its reason; it casts no vote, so it neither makes a claim
"likely false" or "supported" nor raises the certainty of the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

READER_ALONE = "the direction reader reads"  # how the reason of a reading no word or figure states starts
EXPLICIT = ("direction",)  # judges whose edges say whether the passage is about the claim's parts


def _false(value: Any) -> bool:
    """A cell that holds False (not None, NaN or pandas' NA)."""
    try:
        return value is not None and value == value and not bool(value)
    except TypeError:
        return False


def _true(value: Any) -> bool:
    try:
        return value is not None and value == value and bool(value)
    except TypeError:
        return False


def on_topic(edge: Mapping[str, Any]) -> bool:
    """Whether the edge (an `nli_edges` row) may vote: see the module's rule."""
    if _true(edge.get("human_reviewed")):
        return True
    if edge.get("judged_by") not in EXPLICIT:
        return True
    return not (_false(edge.get("exposure_matched")) or _false(edge.get("outcome_matched")))
