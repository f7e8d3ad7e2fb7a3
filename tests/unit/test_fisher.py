"""Counts per arm with no p-value stated: the significance a reader would compute (Fisher's exact test)."""

from __future__ import annotations

import pytest

from lyra_core.direction.figures import effect_figures, figures_way
from lyra_core.direction.fisher import fisher_exact_p
from lyra_core.direction.passage import read_passage


@pytest.mark.parametrize(
    "counts, p",
    [
        ((12, 200, 31, 198), 0.0020418),  # scipy.stats.fisher_exact on the same tables
        ((3, 10, 7, 10), 0.1788954),
        ((1000, 7000, 1030, 7000), 0.4863777),
        ((0, 50, 0, 50), 1.0),
    ],
)
def test_fishers_exact_test_gives_the_two_sided_p_of_a_two_by_two_table(counts, p):
    assert fisher_exact_p(*counts) == pytest.approx(p, abs=1e-6)


def test_counts_beyond_their_total_are_refused():
    with pytest.raises(ValueError):
        fisher_exact_p(5, 4, 1, 10)


@pytest.mark.parametrize(
    "text, way",
    [
        (
            "Postoperative infection occurred in 12 of 200 patients given antibiotic prophylaxis and in 31 of 198 "
            "given placebo.",
            "down",
        ),
        (
            "Wound infection developed in 31/198 patients on placebo and 12/200 on antibiotic prophylaxis.",
            "down",
        ),
        (
            "Infection occurred in 41 of 210 patients given antibiotic prophylaxis and in 18 of 205 given placebo.",
            "up",
        ),
        (
            "Infection occurred in 3 of 10 patients given antibiotic prophylaxis and in 7 of 10 given placebo.",
            "none",
        ),
    ],
)
def test_counts_per_arm_without_a_p_value_are_tested_as_a_reader_would(text, way):
    figures = effect_figures(text, "antibiotic prophylaxis")
    assert figures_way(figures) == way
    assert [f.tested for f in figures] == [True] and "by Fisher's exact test on the counts" in figures[0].text


def test_a_reason_names_the_test_it_ran_on_the_counts():
    reading = read_passage(
        "Postoperative infection occurred in 12 of 200 patients given antibiotic prophylaxis "
        "and in 31 of 198 given placebo.",
        "antibiotic prophylaxis",
        "postoperative infection",
    )
    assert reading.direction == "decreased" and reading.source == "figures"
    assert reading.read_text().startswith("6 vs 15.7, p = 0.002 by Fisher's exact test on the counts")


def test_a_stated_p_value_is_never_replaced_by_the_test():
    figures = effect_figures(
        "Infection occurred in 3 of 10 patients given antibiotic prophylaxis and in 7 of 10 "
        "given placebo (p = 0.04).",
        "antibiotic prophylaxis",
    )
    assert [f.text for f in figures] == ["30 vs 70, p = 0.04"] and not figures[0].tested


def test_the_authors_similar_outweighs_a_test_run_on_their_counts():
    reading = read_passage(
        "A similar proportion of patients in the ibandronate group [371/542 (68.5%)] and "
        "alendronate group [381/513 (74.3%)] experienced at least one adverse event.",
        "ibandronate",
        "adverse events",
    )
    assert reading.direction == "no_difference" and reading.source == "words"


def test_a_p_value_written_with_a_slash_is_not_a_count():
    figures = effect_figures(
        "There were significant reductions in anxiety (P<0/001), depressive (P<0/001) and "
        "worry symptoms (P<0/001) from baseline to end of treatment.",
        "mindfulness",
    )
    assert not any(f.tested for f in figures)
