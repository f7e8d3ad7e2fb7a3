"""bench.evidence_precision counts a passage shown as Supports right only where it holds a SUPPORT
rationale, one shown as Refutes only where it holds a CONTRADICT rationale."""

from __future__ import annotations

import math

from bench.evidence_precision import precision
from bench.verification import GOLD_ID, NLI_IDS


def test_a_shown_passage_is_right_only_with_a_rationale_of_its_own_label():
    support, contradict, none = GOLD_ID["SUPPORT"], GOLD_ID["CONTRADICT"], NLI_IDS["neutral"]
    shown = [("SUPPORTS", support), ("SUPPORTS", contradict), ("REFUTES", contradict), ("REFUTES", none)]
    assert precision(shown) == 0.5
    assert precision([("REFUTES", support)]) == 0.0
    assert math.isnan(precision([]))  # nothing shown: no precision, not a perfect one
