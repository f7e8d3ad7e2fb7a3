"""The question's hypothesis meets every finding that addresses its exposure and outcome."""

from __future__ import annotations

import numpy as np
import pandas as pd

from lyra_assets.evidence.judging import addressing_fragments
from lyra_core.evidence import select_pairs, with_addressing
from lyra_core.hypothesis import HYPOTHESIS


def test_the_hypothesis_meets_every_fragment_about_its_exposure_and_outcome_besides_the_most_similar():
    claims = pd.DataFrame(
        {
            "text": ["Aspirin reduces the risk of colorectal cancer.", "Statins lower cholesterol."],
            "origin": [HYPOTHESIS, "extracted"],
        }
    )
    fragments = pd.DataFrame(
        {
            "text": [
                "Aspirin use was associated with a lower risk of colorectal cancer (OR 0.69).",
                "Colorectal cancer incidence did not differ between aspirin and placebo.",
                "Statins lowered LDL cholesterol by 30%.",
                "Hip fractures were fewer with vitamin D.",
            ],
            "page_id": ["p1", "p2", "p3", "p4"],
        }
    )
    addressing = addressing_fragments(claims, fragments, {})
    assert addressing == {0: [0, 1]}  # the extracted claim keeps its similarity search alone

    rng = np.random.default_rng(0)
    claim_vectors, fragment_vectors = rng.normal(size=(2, 8)), rng.normal(size=(4, 8))
    top1 = select_pairs(claim_vectors, fragment_vectors, ["p1", "p2", "p3", "p4"], [set(), set()], 1)
    widened = with_addressing(top1, claim_vectors, fragment_vectors, addressing)
    assert {fi for fi, _ in widened[0]} == {0, 1} | {fi for fi, _ in top1[0]}
    assert widened[1] == top1[1]
    assert all(abs(sim - float(claim_vectors[0] @ fragment_vectors[fi])) < 1e-9 for fi, sim in widened[0])
    assert len(with_addressing(top1, claim_vectors, fragment_vectors, addressing, cap=1)[0]) == 1
