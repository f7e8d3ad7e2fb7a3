"""The rule reader takes a comparison said to fall short of significance, in whatever words, as the
finding between the arms: a null, whatever change within one arm the same passage names. Sentences
quoted from Evidence Inference v2 train abstracts (their annotators' label: no significant difference)."""

from __future__ import annotations

import pytest

from lyra_core.direction.passage import read_passage


@pytest.mark.parametrize(
    "passage, exposure, comparator, outcome",
    [
        (
            "HDL cholesterol levels increased significantly in the mangosteen group, suggesting an antiatherogenic "
            "effect (p = 0.024). However, comparison with control was not statistically significant.",
            "behavioral therapy and mangosteen",
            "behavioral therapy alone",
            "HDL cholesterol levels",
        ),
        (
            "Diurnal systolic and diastolic BP were lower in the DTFC group than the latanoprost group; however, the "
            "difference between the groups was not statistically significant.",
            "dorzolamide-timolol fixed combination (DTFC)",
            "latanoprost",
            "Diurnal systolic and diastolic BP",
        ),
    ],
)
def test_a_comparison_not_significant_is_a_null_beside_a_change_within_an_arm(
    passage, exposure, comparator, outcome
):
    reading = read_passage(passage, exposure, outcome, comparator)
    assert reading.direction == "no_difference"
    assert reading.null_stated
    assert "significant" in reading.cue


def test_a_significant_difference_between_the_arms_still_reads_its_direction():
    passage = (
        "Cilostazol treatment significantly reduced soluble vascular cellular adhesion molecule-1 (sVCAM-1) "
        "level (from 1288.7 ± 285.6 to 1168.2 ± 252.3 ng/dL, P = 0.0003)."
    )
    reading = read_passage(
        passage, "cilostazol", "soluble vascular cellular adhesion molecule-1 (sVCAM-1)", "placebo"
    )
    assert reading.direction == "decreased"
