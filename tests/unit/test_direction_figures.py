"""Findings as abstracts state them: ratios named in words, counts per arm, p-values and "NS" attached to
the comparison they qualify, negated comparatives, arms named in either order and the level of the
exposure (docs/direction.md). Phrasings are those of trial and cohort abstracts."""

from __future__ import annotations

import pytest

from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.figures import effect_figures, figures_way
from lyra_core.direction.passage import read_passage
from lyra_core.direction.relevance import relevance
from lyra_core.direction.verdict import judge, passage_distribution


@pytest.mark.parametrize(
    "text, shown, way",
    [
        (
            "The hazard ratio for stroke with warfarin compared with aspirin was 0.52 (95% CI 0.37–0.72).",
            "hazard ratio 0.52, 0.37–0.72",
            "down",
        ),
        (
            "Mortality was lower in the intervention arm (RR = 0.52, 95% CI 0.37 to 0.72).",
            "RR 0.52, 0.37–0.72",
            "down",
        ),
        (
            "Smoking was associated with an odds ratio of 1.8 (95% confidence interval [CI], 1.2–2.5) for lung cancer.",
            "odds ratio 1.8, 1.2–2.5",
            "up",
        ),
        (
            "fever clearance was faster with gatifloxacin (Hazard Ratio[95%CI] = 2.171 [1.545–3.051], p<0.0001)",
            "Hazard Ratio 2.171, 1.545–3.051",
            "up",
        ),
        (
            "The fall risk was significantly lower in the intervention group, HRR 0.41 (95% CI: 0.20–0.82, p = 0.012).",
            "HRR 0.41, 0.2–0.82",
            "down",
        ),
    ],
)
def test_a_ratio_named_in_words_or_by_its_abbreviation_is_read_with_any_linking_word(text, shown, way):
    figures = effect_figures(text)
    assert figures[0].text == shown and figures_way(figures) == way


@pytest.mark.parametrize(
    "text, shown, way",
    [
        (
            "Postoperative infection occurred in 12 of 200 patients given antibiotic prophylaxis and in 31 of 198 "
            "given placebo (p = 0.003).",
            "6 vs 15.7, p = 0.003",
            "down",
        ),
        (
            "Wound infection: 30/300 with antibiotic prophylaxis versus 20/100 with placebo (p = 0.01).",
            "10 vs 20, p = 0.01",
            "down",
        ),
        (
            "Infection occurred in 12 (6%) patients given antibiotic prophylaxis and 31 (15.7%) given placebo "
            "(P = 0.003).",
            "6 vs 15.7, p = 0.003",
            "down",
        ),
    ],
)
def test_counts_per_arm_are_compared_by_their_share_of_the_arm(text, shown, way):
    figures = effect_figures(text, "antibiotic prophylaxis")
    assert [f.text for f in figures] == [shown] and figures_way(figures) == way


def test_a_comparison_whose_only_p_value_is_not_significant_is_no_difference():
    passage = (
        "No significant difference was found between the three groups, in terms of recovery time (P=0.076)."
    )
    reading = read_passage(passage, "palonosetron", "recovery time")
    assert reading.source == "figures" and reading.direction == "no_difference"
    assert reading.figures_text() == "no significant difference, p = 0.076"


@pytest.mark.parametrize(
    "passage, exposure, outcome",
    [
        (
            "Mice fed a high-fat diet did not gain more weight than mice on a standard diet.",
            "high-fat diet",
            "weight gain",
        ),
        (
            "The incidence of nausea with ondansetron was no greater than with placebo.",
            "ondansetron",
            "incidence of nausea",
        ),
    ],
)
def test_a_negated_comparative_reads_as_no_difference(passage, exposure, outcome):
    assert read_passage(passage, exposure, outcome).direction == "no_difference"


@pytest.mark.parametrize(
    "passage, exposure, outcome, direction",
    [
        (
            "Compared with placebo, the placebo group had a higher rate of migraine attacks "
            "than the topiramate group.",
            "topiramate",
            "migraine attacks",
            "decreased",
        ),
        (
            "A significantly higher adjusted risk of mortality was observed in men with a low fitness level (hazard "
            "ratio, 2.7; 95% CI, 1.5-4.8) compared with normal weight men with a high fitness level.",
            "high cardiopulmonary fitness",
            "mortality",
            "decreased",
        ),
        (
            "Non-users of aspirin had a higher risk of colorectal cancer than users (p < 0.001).",
            "aspirin use",
            "colorectal cancer",
            "decreased",
        ),
        (
            "Men with a high fitness level had lower mortality than men with a low fitness level (p < 0.001).",
            "high cardiopulmonary fitness",
            "mortality",
            "decreased",
        ),
    ],
)
def test_the_arm_named_first_and_the_level_of_the_exposure_decide_the_direction(
    passage, exposure, outcome, direction
):
    assert read_passage(passage, exposure, outcome).direction == direction


def test_a_reason_names_the_figure_or_the_words_it_read():
    claim = read_claim("High cardiopulmonary fitness increases mortality.")
    passage = (
        "A significantly higher adjusted risk of mortality was observed in men with a low fitness level "
        "(hazard ratio, 2.7; 95% CI, 1.5-4.8) compared with normal weight men with a high fitness level."
    )
    unsure = {"increased": 0.45, "decreased": 0.45, "no_difference": 0.05, "unrelated": 0.05}
    reading = read_passage(passage, claim.exposure, claim.outcome)
    verdict = judge(
        claim,
        passage_distribution(unsure, reading),
        reading,
        relevance(claim.exposure, claim.outcome, passage),
    )
    assert verdict.relation == "REFUTES"
    assert "hazard ratio 2.7, 1.5–4.8; said of “low fitness”, turned round" in verdict.reason
    worded = "Serum triglycerides were significantly lower with nutrition counselling than with usual care (p=0.008)."
    frame = read_claim("Nutrition counselling lowers serum triglycerides.")
    reading = read_passage(worded, frame.exposure, frame.outcome)
    verdict = judge(
        frame,
        passage_distribution(unsure, reading),
        reading,
        relevance(frame.exposure, frame.outcome, worded),
    )
    assert verdict.relation == "SUPPORTS" and "(p = 0.008; “lower”)" in verdict.reason


def test_a_reason_says_when_the_word_it_quotes_was_said_of_the_comparator():
    passage = (
        "Compared with placebo, the placebo group had a higher rate of migraine attacks "
        "than the topiramate group."
    )
    reading = read_passage(passage, "Topiramate", "frequency of migraine attacks")
    assert reading.direction == "decreased" and reading.read_text() == "“higher” said of the comparator's arm"


def test_a_descriptive_figure_states_no_direction():
    reading = read_passage(
        "Influenza vaccination coverage among health workers was 45% in 2015.",
        "influenza vaccination",
        "influenza hospitalisations",
    )
    assert reading.direction is None and reading.figures == [] and reading.read_text() == ""


def test_a_hazard_ratio_of_a_survival_outcome_counts_its_events():
    passage = (
        "There was a significant improvement in progression-free survival with erlotinib (unadjusted HR 0.83, "
        "95% CI 0.71–0.97, p=0.019)."
    )
    reading = read_passage(passage, "erlotinib", "progression-free survival")
    assert reading.direction == "increased" and reading.figures_text() == "HR 0.83, 0.71–0.97"
    assert (
        read_passage(
            passage.replace("progression-free survival", "mortality"), "erlotinib", "mortality"
        ).direction
        == "decreased"
    )


def test_words_of_improvement_are_read_where_the_passage_names_the_outcome_by_another_form():
    passage = (
        "In this study of adults with subjective memory impairment, a 6-month program of physical activity "
        "provided a modest improvement in cognition over an 18-month follow-up period."
    )
    reading = read_passage(passage, "Six months of physical activity", "cognitive functioning")
    assert reading.direction == "increased" and reading.read_text() == "“improvement”"


@pytest.mark.parametrize(
    "text, exposure, shown",
    [
        (
            "A significantly higher proportion of home deliveries were attended by health workers in the intervention "
            "clusters than in the control clusters (14% vs 1%; p<0·0001).",
            "community health worker training",
            "14 vs 1",
        ),
        (
            "Morphine-induced postconditioning reduced postoperative peak cTnI release as compared to the control "
            "group "
            "(0.57 ± 0.15 versus 0.75 ± 0.20 ng/mL, p<0.0001).",
            "morphine",
            "0.57 vs 0.75",
        ),
        (
            "The average hospitalization for the study group and control group was 13.8 (8.1) and 17.5 (14.5) "
            "respectively (p value <0.001).",
            "osteopathic manipulative treatment",
            "13.8 vs 17.5",
        ),
        (
            "Grade 3 or 4 diarrhoea was more common with erlotinib than placebo (8% [28 of 334] vs 1% [four of 313], "
            "p=0·0001).",
            "erlotinib",
            "8 vs 1",
        ),
    ],
)
def test_which_arm_a_figure_belongs_to_is_read_from_the_clause_that_names_them(text, exposure, shown):
    figures = effect_figures(text, exposure)
    assert figures and figures[0].text.startswith(shown + ",")
