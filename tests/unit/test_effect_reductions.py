"""A risk reduction is a lower risk, its interval may carry per cent signs, and "1-year" is no value."""

from __future__ import annotations

import pytest

from lyra_core.direction.figures import effect_figures, figures_way


@pytest.mark.parametrize(
    "text, way",
    [
        (
            "The primary outcome occurred in 126 (10.0%) patients allocated to stockings and in 133 (10.5%) allocated "
            "to avoid them, a non-significant absolute reduction in risk of 0.5% (95% CI -1.9% to 2.9%).",
            "none",
        ),
        (
            "Prophylaxis gave an absolute risk reduction of 3.0% (95% CI 1.2% to 4.8%) in wound infection.",
            "down",
        ),
        (
            "Screening yielded a relative risk reduction of 20% (95% CI 6.8 to 31.0) in lung-cancer mortality.",
            "down",
        ),
        ("The risk difference was -3.0% (95% CI -4.8% to -1.2%) with prophylaxis.", "down"),
        ("The absolute risk reduction was -2.0% (95% CI -3.5 to -0.5): more events with the drug.", "up"),
    ],
)
def test_a_reduction_in_risk_is_read_as_a_lower_risk_against_its_interval(text, way):
    assert figures_way(effect_figures(text, "prophylaxis")) == way


def test_a_number_that_begins_a_compound_word_is_not_a_difference():
    text = (
        "Treatment was associated with a significantly larger reduction in the risk of 1-year CV morbidity "
        "and mortality compared with placebo (p = 0.0001)."
    )
    assert [f.kind for f in effect_figures(text, "treatment")] == ["p_value"]


def test_an_interval_with_a_negative_bound_is_written_with_to():
    from lyra_core.evidence_facts import figures_shown

    figures = effect_figures(
        "a non-significant absolute reduction in risk of 0.5% (95% CI -1.9% to 2.9%)", "GCS"
    )
    assert [f.text for f in figures] == ["absolute reduction in risk 0.5, -1.9 to 2.9"]
    assert figures_shown(figures[0].text, "", outcome_read=True) == figures[0].text  # it carries its interval
