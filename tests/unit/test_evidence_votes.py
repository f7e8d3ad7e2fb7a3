"""Which passages may vote on a claim, on sentences of the SciFact corpus that were shown as a train
claim's strongest evidence for or against it, and were not: a direction word said of another thing
than the claim's outcome, a review's plan, a reading the judge holds less likely than not."""

from __future__ import annotations

import pytest

from lyra_core.direction.another_thing import said_of_another_thing, subject_is_another_thing
from lyra_core.direction.passage import read_passage, states_no_finding
from lyra_core.direction.verdict import counted_relation, no_finding_reason


@pytest.mark.parametrize(
    "passage, exposure, outcome, word",
    [
        # doc 30981192, for "LDL cholesterol has a causal role in the development of cardiovascular disease":
        # what is raised and lowered is HDL-C and TG, a treatment target, not cardiovascular disease
        (
            "Therefore, to reduce further the risk of coronary heart disease (CHD), raising HDL-C and lowering TG "
            "may be "
            "the secondary therapeutic target for patients who achieve LDL-C levels below the currently recommended "
            "targets but are still at risk of CHD.",
            "LDL cholesterol",
            "development of cardiovascular disease",
            "raising",
        ),
        # doc 17447653 (BLAST+), for "De novo assembly of sequence data has shorter contigs …"
        (
            "For long database sequences, it is possible to retrieve only the relevant parts of the sequence, "
            "reducing CPU "
            "time and memory usage for searches of short queries against databases of contigs or chromosomes.",
            "De novo assembly of sequence data",
            "contigs",
            "reducing",
        ),
        # doc 45638119, for "ALDH1 expression is associated with poorer prognosis for breast cancer primary tumors":
        # what the findings "facilitate" is the clinical application of stem cell concepts
        (
            "In a series of 577 breast carcinomas, expression of ALDH1 detected by immunostaining correlated with poor "
            "prognosis. These findings offer an important new tool for the study of normal and malignant breast stem "
            "cells "
            "and facilitate the clinical application of stem cell concepts.",
            "ALDH1 expression",
            "prognosis for breast cancer primary tumors",
            "facilitate",
        ),
        # doc 43385013, for "… the loss of myoepithelial cells promotes the transition of ductal carcinoma in situ …"
        (
            "Finally, we demonstrate that Slug and Zeb1 EMT-inducers control the progenitor and mesenchymal-like "
            "phenotype "
            "in EpCAM+ cells and Fibros, respectively, by inhibiting luminal differentiation.",
            "the loss of myoepithelial cells",
            "transition of ductal carcinoma in situ to invasive carcinoma",
            "inhibiting",
        ),
    ],
)
def test_a_direction_word_said_of_another_thing_than_the_outcome_does_not_give_its_direction(
    passage, exposure, outcome, word
):
    reading = read_passage(passage, exposure, outcome)
    assert reading.cue != word
    if word != "raising":  # "to reduce further the risk of coronary heart disease" is said of it
        assert reading.direction is None


@pytest.mark.parametrize(
    "after, outcome, other",
    [
        (
            " HDL-C and lowering TG may be the secondary therapeutic target",
            "development of cardiovascular disease",
            True,
        ),
        (" the risk of coronary heart disease (CHD)", "development of cardiovascular disease", False),
        (" the risk (HR 0.80)", "risk of stroke", False),  # names nothing in particular: the outcome's risk
        (" in the placebo group", "mortality", False),  # a passive: its object comes before it
        (" by 20% (95% CI 10-30%)", "mortality", False),
        (" DVT in stroke patients", "deep vein thrombosis", False),  # the outcome by its acronym
        (" deaths in most patients", "mortality", False),  # the outcome by another word for the same thing
        # doc 12670680, for "Basophils promote disease development in patients with SLE": "elevated serum IgE" is
        # said of IgE; "associated with increased disease activity" of the outcome
        (" serum IgE, self-reactive IgEs and activated basophils", "disease development", True),
        (" disease activity and active lupus nephritis", "disease development", False),
    ],
)
def test_the_object_of_a_direction_word_is_the_noun_phrase_right_after_it(after, outcome, other):
    assert said_of_another_thing(after, outcome) == other


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


@pytest.mark.parametrize(
    "before, outcome, other",
    [
        # doc 9555784, shown as refuting "Vitamin D supplementation reduces fracture risk": the 25OHD level is
        # what was higher, in those with fractures; a level compared by outcome is no effect of supplementation
        ("Among these subjects, the 25OHD level was significantly ", "fracture risk", True),
        ("Hip fractures were ", "fracture risk", False),
        ("The rate was ", "mortality", False),  # names nothing in particular: the outcome's rate
        # people or an arm are who had more or less of the outcome
        ("Children treated with artemether-lumefantrine were significantly ", "gametocyte carriage", False),
    ],
)
def test_a_comparative_said_of_a_subject_other_than_the_outcome_is_not_said_of_the_outcome(
    before, outcome, other
):
    assert (
        subject_is_another_thing(before, outcome, "vitamin D supplementation artemether-lumefantrine")
        == other
    )


def test_a_level_higher_in_those_with_the_outcome_states_no_direction_of_its_risk():
    passage = (
        "Among these subjects, the 25OHD level was significantly higher in those with prior fragility "
        "fractures (p=0.018) and osteoporosis (p=0.008)."
    )  # doc 9555784
    assert read_passage(passage, "vitamin D supplementation", "fracture risk").direction is None
