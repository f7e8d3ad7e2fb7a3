"""A condition a passage names only by its undoing ("accelerates the resolution of fibrosis") is less of
the condition, and a ratio of the chance of a reduction ("more likely to reduce the intensity of headaches,
relative risk 1.41") is less of what is reduced, and a harm listed beside the outcome ("epithelial damage and
fibrosis") is not its change (lyra_core/direction/other_end.py, passage.py).
Passages: SciFact corpus abstracts, as written there."""

from __future__ import annotations

import pytest

from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.other_end import as_named_in
from lyra_core.direction.passage import read_passage
from lyra_core.direction.verdict import judge_passage

RAISED = {"increased": 0.9, "decreased": 0.03, "no_difference": 0.05, "unrelated": 0.02}
METFORMIN = (
    "In a bleomycin model of lung fibrosis in mice, metformin therapeutically accelerates the resolution of "
    "well-established fibrosis in an AMPK-dependent manner."
)


@pytest.mark.parametrize(
    "outcome, passage, named",
    [
        (
            "inflammation-related fibrosis in the lungs",
            METFORMIN,
            ("resolution of inflammation-related fibrosis in the lungs", True),
        ),
        (
            "hepatitis C infection",
            "Clearance of hepatitis C infection was higher with X.",
            ("clearance of hepatitis C infection", True),
        ),
        # the condition named itself somewhere, or the claim's outcome is the undoing: read as it is
        ("fibrosis", "Fibrosis was lower with X, and its resolution faster.", ("fibrosis", False)),
        (
            "diabetes remission",
            "Remission of type 2 diabetes was achieved by 22 (73%).",
            ("diabetes remission", False),
        ),
    ],
)
def test_a_condition_named_only_by_its_undoing_is_named_from_its_other_end(outcome, passage, named):
    assert as_named_in(outcome, passage) == named


def test_faster_resolution_of_a_condition_supports_a_claim_that_the_exposure_reduces_it():
    claim = read_claim(
        "AMP-activated protein kinase (AMPK) activation reduces inflammation-related fibrosis in the lungs."
    )
    title = "Metformin reverses established lung fibrosis through AMPK activation. "
    verdict = judge_passage(claim, METFORMIN, title + METFORMIN, RAISED)
    assert verdict.relation == "SUPPORTS", verdict.reason
    assert "resolution of" in verdict.reason


def test_a_ratio_of_the_chance_of_a_reduction_above_one_is_less_of_the_outcome():
    # SciFact corpus, a meta-analysis of tricyclics for headache
    passage = (
        "Tricyclics were also more likely to reduce the intensity of headaches by at least 50% than either "
        "placebo (tension-type: relative risk 1.41, 95% confidence interval 1.02 to 1.89; migraine: 1.80, "
        "1.24 to 2.62)."
    )
    assert read_passage(passage, "tricyclics", "intensity of headaches").direction == "decreased"
    # a ratio of the outcome itself is read as it is
    plain = "Headaches were more frequent with tricyclics (relative risk 1.41, 95% confidence interval 1.02 to 1.89)."
    assert read_passage(plain, "tricyclics", "headaches").direction == "increased"


@pytest.mark.parametrize(
    "passage, exposure, outcome",
    [
        (
            "We also found that its deletion in the tubular epithelium leads to enhanced TGF-β1-Smad family "
            "member 3 (Smad3) signaling, epithelial damage and fibrosis.",
            "deletion of the BMP receptor Alk3",
            "fibrosis",
        ),
        (
            "Here we show that induction of urokinase receptor (uPAR) signaling in podocytes leads to foot "
            "process effacement and urinary protein loss via a mechanism that includes interaction with αvβ3 "
            "integrin.",
            "induction of urokinase receptor signaling in podocytes",
            "foot process effacement and proteinuria",
        ),
    ],
)
def test_a_harm_listed_beside_the_outcome_is_not_its_change(passage, exposure, outcome):
    # SciFact corpus: "epithelial damage and fibrosis" lists two conditions; neither "damage" nor "loss"
    # says the outcome fell
    assert read_passage(passage, exposure, outcome).direction != "decreased"
    assert read_passage(
        "Bone loss was greater with X than with placebo.", "X", "bone mineral density"
    ).direction
