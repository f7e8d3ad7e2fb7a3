"""An exposure named only among what a study adjusted for is not what the study examined: a finding
of that study says nothing about it. Sentences from SciFact corpus abstracts."""

import pytest

from lyra_core.direction.covariates import without_covariates
from lyra_core.direction.relevance import relevance

VITAMIN_D = (
    "Odds ratios (OR) for risk of colorectal cancer were calculated using conditional logistic regression "
    "adjusted for body mass index, physical activity, smoking, family history, use of hormone replacement "
    "therapy, aspirin use, and dietary intakes. We found a significant inverse linear association between "
    "plasma 25(OH)D and risk of colorectal cancer (P = 0.02)."
)


def test_a_finding_whose_paper_names_the_exposure_only_as_a_covariate_is_not_about_it():
    paper = f"Plasma vitamin D metabolites and risk of colorectal cancer in women. {VITAMIN_D}"
    read = relevance("aspirin", "the risk of colorectal cancer", VITAMIN_D, paper)
    assert not read.exposure_matched and read.outcome_matched
    assert relevance("plasma 25(OH)D", "the risk of colorectal cancer", VITAMIN_D, paper).exposure_matched


@pytest.mark.parametrize(
    "sentence, covariate, examined",
    [
        (VITAMIN_D, "aspirin", "25(OH)D"),
        (
            "Statin use was associated with a significant reduction in the risk of hip fracture, even after "
            "controlling for variables such as race, insurance status, psychoactive medications, estrogen and "
            "thiazide use, ischemic heart disease, cancer, and diabetes mellitus.",
            "thiazide",
            "Statin use",
        ),
        (
            "Cancer patients with hematological malignancies had the highest risk of venous thrombosis, "
            "adjusted for age and sex (adjusted OR, 28.0).",
            "age and sex",
            "hematological malignancies",
        ),
    ],
)
def test_a_list_of_what_was_adjusted_for_is_taken_out_to_its_sentence_end(sentence, covariate, examined):
    kept = without_covariates(sentence)
    assert covariate not in kept and examined in kept


@pytest.mark.parametrize(
    "sentence, examined",
    [
        # the list opens the sentence: the main clause after its first comma names what was examined
        (
            "After adjusting for extent of statin use in the prior 3 years, current use (on the index date) was "
            "associated with a 71% reduction in risk.",
            "current use",
        ),
        (
            "After adjusting for weight, later age at menarche, and greater height were associated with greater "
            "dense and lesser nondense areas.",
            "later age at menarche",
        ),
        # a part holding a verb is the main clause, not an item of the list
        (
            "RESULTS In multivariable models adjusted for age and sex, IMT in adulthood was significantly "
            "associated with childhood LDL-C levels (P = .01).",
            "childhood LDL-C levels",
        ),
    ],
)
def test_the_clause_after_a_list_stays(sentence, examined):
    assert examined in without_covariates(sentence)
