"""Which passages may vote on a claim, on sentences of the SciFact corpus that were shown as a train
claim's strongest evidence for or against it, and were not: a review's plan, a reading the judge holds
less likely than not."""

from __future__ import annotations

import pytest

from lyra_core.direction.passage import states_no_finding
from lyra_core.direction.verdict import counted_relation, no_finding_reason


def test_a_review_that_says_what_it_will_discuss_states_no_finding_for_any_claim():
    # doc 26008462 (tissue transglutaminase in wound repair), shown as support of "Chemical injury represses
    # transglutaminase 2 activity", a claim the cross-encoder judges
    review = (
        "In this article we discuss the function of the most widely expressed member of the TG family "
        '"tissue transglutaminase" (TG2) in wound repair. Using both early and recent evidence from the '
        "literature we demonstrate how the multifunctional TG2 affects the stability of the ECM, cell-ECM "
        "interactions and as a consequence cell behavior within the different phases of wound healing."
    )
    assert states_no_finding(review) and no_finding_reason(review) == "states an aim or a method"
    # doc 7521113: a finding the authors state as theirs is one
    assert (
        no_finding_reason(
            "We have demonstrated that major tissue-resident macrophage populations, including "
            "liver Kupffer cells and lung alveolar, splenic, and peritoneal macrophages, are "
            "established prior to birth."
        )
        is None
    )


@pytest.mark.parametrize(
    "relation, p_supports, p_refutes, counted",
    [
        # the shipped cross-encoder on "Helminths interfere with immune system control of coinfections by microbial
        # pathogens" and doc 7433668's "Co-infected mice lacking interleukin (IL) 4Rα exhibited improved ability
        # to control Mtb infection …": refutes at 0.40, its likeliest label yet less likely than not
        ("REFUTES", 0.30, 0.399, "NEUTRAL"),
        # on "Tuberculosis incidence occurs at higher rates in more sparsely populated areas in the UK" and doc
        # 24241932's "Rates of tuberculosis and measures of deprivation. Univariate analysis showed …": 0.45
        ("SUPPORTS", 0.448, 0.20, "NEUTRAL"),
        # and its "For the white population, overcrowding was associated with tuberculosis rates …": 0.59
        ("REFUTES", 0.20, 0.591, "REFUTES"),
        ("NEUTRAL", 0.30, 0.30, "NEUTRAL"),
    ],
)
def test_a_relation_read_less_likely_than_not_is_no_vote(relation, p_supports, p_refutes, counted):
    assert counted_relation(relation, p_supports, p_refutes) == counted
