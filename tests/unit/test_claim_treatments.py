"""Claims that a treatment is effective or ineffective, and correlations "between A and B", read as
claims with a direction (lyra_core/direction/claim_patterns.py)."""

import pytest

from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.relevance import relevance

# (claim, direction, exposure, outcome): SciFact train claims and the hypotheses of questions
TREATMENTS = [
    (
        "Amitriptyline is an effective treatment for chronic tension-type headaches.",
        "decrease",
        "Amitriptyline",
        "chronic tension-type headaches",
    ),
    (
        "Charcoal is an effective treatment for acute paraquat poisoning.",
        "decrease",
        "Charcoal",
        "acute paraquat poisoning",
    ),
    (
        "Cognitive behavioral therapy is an ineffective treatment for insomnia",
        "no_effect",
        "Cognitive behavioral therapy",
        "insomnia",
    ),
    (
        "Integrated care is ineffective at tackling multiple comorbidities.",
        "no_effect",
        "Integrated care",
        "multiple comorbidities",
    ),
    (
        "Nonsteroidal antinflammatory drugs are ineffective as cancer treatments.",
        "no_effect",
        "Nonsteroidal antinflammatory drugs",
        "cancer",
    ),
    (
        "Acupuncture is effective for chronic low back pain.",
        "decrease",
        "Acupuncture",
        "chronic low back pain",
    ),
    ("Statins are effective in preventing stroke.", "decrease", "Statins", "stroke"),
    ("Metformin is not effective in preventing dementia.", "no_effect", "Metformin", "dementia"),
    ("Vitamin D is not an effective treatment for depression.", "no_effect", "Vitamin D", "depression"),
]


@pytest.mark.parametrize(("claim", "direction", "exposure", "outcome"), TREATMENTS)
def test_a_treatment_said_effective_lowers_what_it_treats(claim, direction, exposure, outcome):
    frame = read_claim(claim)
    assert (frame.kind, frame.direction, frame.exposure, frame.outcome) == (
        "effect",
        direction,
        exposure,
        outcome,
    )


BETWEEN = [
    # the outcome is the one named as a risk, a disease or an event, whichever comes first
    (
        "There is a positive correlation between hip fractures and statin use.",
        "increase",
        "statin use",
        "hip fractures",
    ),
    (
        "There is no association between HNF4A mutations and diabetes risks.",
        "no_effect",
        "HNF4A mutations",
        "diabetes risks",
    ),
    (
        "There is an inverse relationship between physical activity and mortality.",
        "decrease",
        "physical activity",
        "mortality",
    ),
    (
        "There is a negative correlation between sleep duration and obesity.",
        "decrease",
        "sleep duration",
        "obesity",
    ),
]


@pytest.mark.parametrize(("claim", "direction", "exposure", "outcome"), BETWEEN)
def test_a_correlation_between_two_things_is_an_association_with_its_sign(
    claim, direction, exposure, outcome
):
    frame = read_claim(claim)
    assert (frame.direction, frame.exposure, frame.outcome) == (direction, exposure, outcome)


def test_an_association_of_no_stated_sign_is_borne_out_either_way():
    frame = read_claim("There is an association between coffee consumption and liver cancer in men.")
    assert (frame.exposure, frame.outcome, frame.population) == (
        "coffee consumption",
        "liver cancer",
        "in men",
    )
    assert frame.either_way and frame.says() == "coffee consumption is associated with it"


@pytest.mark.parametrize(
    "claim",
    [
        "The drug is effective in children.",  # who it works in, not what it treats
        "MEK inhibitors are effective treatments in RAS-driven mouse models of cancer.",
        "Aspirin is not ineffective for headache.",  # a double negation claims neither way
    ],
)
def test_effective_without_what_is_treated_is_no_claim_of_an_effect(claim):
    assert read_claim(claim).direction is None


# SciFact corpus, "Cognitive behavioral therapy vs zopiclone for treatment of chronic primary insomnia in
# older adults: a randomized controlled trial"
CBT_TRIAL = (
    "Cognitive behavioral therapy vs zopiclone for treatment of chronic primary insomnia in older adults."
)
CBT_CONCLUSION = (
    "CONCLUSION These results suggest that interventions based on CBT are superior to zopiclone treatment both "
    "in short- and long-term management of insomnia in older adults."
)


def test_the_management_of_the_condition_a_treatment_claim_names_is_about_its_outcome():
    frame = read_claim("Cognitive behavioral therapy is an effective treatment for insomnia.")
    assert frame.treats
    about = relevance(frame.exposure, frame.outcome, CBT_CONCLUSION, CBT_TRIAL, treated=frame.treats)
    assert about.about_both
    # for a claim about getting the condition, its management is not the outcome
    getting = read_claim("Shift work increases insomnia.")
    assert not getting.treats
    assert not relevance(
        "cognitive behavioral therapy", "insomnia", CBT_CONCLUSION, CBT_TRIAL
    ).outcome_matched


# (claim, direction, exposure, outcome, comparator): one thing's measure against another's; SciFact
# train claims and forms written beside them
COMPARISONS = [
    (
        "Incidence of 10/66 dementia is higher than the incidence of DSM-IV dementia.",
        "increase",
        "10/66 dementia",
        "Incidence",
        "DSM-IV dementia",
    ),
    (
        "The incidence of hip fracture among statin users is 2-fold lower than among non-users.",
        "decrease",
        "statin users",
        "incidence of hip fracture",
        "non-users",
    ),
    (
        "Omnivores produce more trimethylamine N-oxide from dietary l-carnitine than vegans.",
        "increase",
        "Omnivores",
        "trimethylamine N-oxide from dietary l-carnitine",
        "vegans",
    ),
    (
        "Diabetes remission occurs less in people treated with conventional therapy than in people "
        "treated with laparoscopic adjustable gastric banding surgery.",
        "decrease",
        "conventional therapy",
        "Diabetes remission",
        "laparoscopic adjustable gastric banding surgery",
    ),
    (
        "Diabetes remission is less common after conventional therapy than after gastric banding.",
        "decrease",
        "conventional therapy",
        "Diabetes remission",
        "gastric banding",
    ),
    (
        "The incidence of dementia is higher with the 10/66 criteria than with DSM-IV criteria.",
        "increase",
        "10/66 criteria",
        "incidence of dementia",
        "DSM-IV criteria",
    ),
    (
        "Asthma is more common among smokers than among non-smokers.",
        "increase",
        "smokers",
        "Asthma",
        "non-smokers",
    ),
    (
        "The proportion of people with visual difficulty is two times higher in low-income countries "
        "than in high-income countries.",
        "increase",
        "low-income countries",
        "proportion of people with visual difficulty",
        "high-income countries",
    ),
]


@pytest.mark.parametrize(("claim", "direction", "exposure", "outcome", "comparator"), COMPARISONS)
def test_a_measure_of_one_thing_against_another_is_a_claim_with_a_direction(
    claim, direction, exposure, outcome, comparator
):
    frame = read_claim(claim)
    assert (frame.kind, frame.direction, frame.negated) == ("effect", direction, False)
    assert (frame.exposure, frame.outcome, frame.comparator) == (exposure, outcome, comparator)


def test_a_comparison_denied_is_negated_and_a_person_is_not_a_measure():
    denied = read_claim(
        "Mortality in patients given drug A was not higher than that of patients given placebo."
    )
    assert (denied.direction, denied.negated, denied.exposure) == ("increase", True, "drug A")
    assert denied.comparator == "placebo"
    # "children of smokers are taller than …" names no measure of the smokers: no comparison is read
    assert read_claim("Children of smokers are taller than children of non-smokers.").exposure != "smokers"


def test_associated_with_that_names_the_subject_is_not_the_claim_s_association():
    # the participle qualifies the subject; the sentence's own verb is the claim
    effect = read_claim("Side effects associated with antidepressants increases risk of stroke.")
    assert (effect.kind, effect.direction) == ("effect", "increase")
    assert (effect.exposure, effect.outcome) == (
        "Side effects associated with antidepressants",
        "risk of stroke",
    )
    for claim in (
        "Side effects associated with antidepressants do not represent a mortality risk to postmenopausal women.",
        "Pre-mRNAs associated with spliceosomal components are less stable than unassociated splicing substrates.",
        "Mathematical models predict that using artemisinin-based combination therapy has a modest impact.",
    ):
        assert read_claim(claim).cue != "associated", claim
    plain = read_claim("Statin use is associated with a lower risk of hip fracture in older women.")
    assert (plain.exposure, plain.outcome, plain.direction) == (
        "Statin use",
        "risk of hip fracture",
        "decrease",
    )
