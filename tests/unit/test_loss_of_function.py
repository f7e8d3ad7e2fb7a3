"""An exposure named by its loss ("knockout of MVP", "TLR4-deficient mice") reports the opposite of what the
exposure does; a claim whose exposure is already a loss, or a passage naming both ends, is read as it is."""

from __future__ import annotations

import pytest

from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.loss_of_function import named_as_lost
from lyra_core.direction.verdict import judge_passage

LOWER = {"increased": 0.03, "decreased": 0.9, "no_difference": 0.05, "unrelated": 0.02}


@pytest.mark.parametrize(
    "exposure, passage, lost",
    [
        (
            "major vault protein (MVP)",
            "Knockout of MVP leads to miR-193a accumulation in the donor cells.",
            "Knockout of MVP",
        ),
        ("TLR4", "TLR4-deficient mice were protected from sepsis.", "TLR4-deficient"),
        ("Sirt1", "Sirt1-/- mice had shorter lifespans.", "Sirt1-/-"),
        ("STAT3", "Silencing STAT3 reduced tumour growth.", "Silencing STAT3"),
        (
            "PP2A inhibitors",
            "Inhibition of PP2A reduced tau phosphorylation.",
            None,
        ),  # the claim's exposure is a loss
        ("HDAC4", "HDAC4 overexpression and HDAC4 knockdown had opposite effects.", None),  # both ends named
        ("aspirin", "Aspirin reduced the risk of stroke.", None),
    ],
)
def test_the_loss_of_an_exposure_is_found_as_the_passage_names_it(exposure, passage, lost):
    assert named_as_lost(exposure, passage) == lost


def test_what_happens_without_the_exposure_is_turned_round():
    # doc 7662395 (SciFact corpus): MVP knocked out, tumour progression inhibited — MVP promotes it
    claim = read_claim("Major vault protein (MVP) leads to more aggressive tumors.")
    passage = (
        "Knockout of MVP leads to miR-193a accumulation in the exosomal donor cells instead of exosomes, "
        "inhibiting tumour progression."
    )
    verdict = judge_passage(claim, passage, "Major vault protein and tumour progression. " + passage, LOWER)
    assert verdict.relation == "SUPPORTS", verdict.reason
    assert "with knockout of MVP (higher aggressive tumors with major vault protein (MVP))" in verdict.reason


def test_a_loss_named_as_what_the_exposure_is_compared_with_is_not_the_exposure_s_loss():
    # SciFact corpus (HIV treatment models): "lower than it would have been in the absence of ART" is lower with ART
    passage = (
        "Considering the actual scale-up of ART in South Africa, seven models estimated that current HIV "
        "incidence is 17% to 32% lower than it would have been in the absence of ART."
    )
    assert named_as_lost("ART", passage) is None
    assert named_as_lost("ART", "In the absence of ART, HIV incidence rose by 30%.") == "absence of ART"


def test_the_other_end_of_an_exposure_named_only_as_the_comparator_is_not_the_exposure():
    # SciFact corpus: quitters and reducers against "persistent heavy smokers"
    from lyra_core.direction.other_end import exposure_as_named_in

    passage = (
        "Using Cox regression, the adjusted hazard ratio (HR) for lung cancer in reducers was 0.73 (95% "
        "confidence interval [CI], 0.54-0.98) compared with persistent heavy smokers."
    )
    assert exposure_as_named_in("quitting smoking", passage) == ("quitting smoking", False)
    assert exposure_as_named_in("quitting smoking", "Smokers had a higher risk of lung cancer.") == (
        "smokers",
        True,
    )
