"""A claim that a state changes in a group ("X declines in aged organisms") has a direction: the group is
the exposure, the state the outcome, while "X reduces falls in older adults" stays X's effect on falls."""

from __future__ import annotations

import pytest

from lyra_core.direction.claim_frame import read_claim


@pytest.mark.parametrize(
    "claim, direction, exposure, outcome",
    [
        ("Autophagy declines in aged organisms.", "decrease", "aged organisms", "Autophagy"),
        ("Autophagy decreases in aged organisms.", "decrease", "aged organisms", "Autophagy"),
        (
            "Mortality falls among patients given early dialysis.",
            "decrease",
            "early dialysis",
            "Mortality",
        ),
        (
            "Expression of p16 increases in senescent cells.",
            "increase",
            "senescent cells",
            "Expression of p16",
        ),
    ],
)
def test_a_change_in_a_state_said_of_a_group_is_a_claim_with_a_direction(claim, direction, exposure, outcome):
    frame = read_claim(claim)
    assert (frame.kind, frame.direction, frame.exposure, frame.outcome) == (
        "effect",
        direction,
        exposure,
        outcome,
    )


@pytest.mark.parametrize(
    "claim, kind, direction, exposure, outcome",
    [
        (
            "Vitamin D supplementation reduces falls in older adults.",
            "effect",
            "decrease",
            "Vitamin D supplementation",
            "falls",
        ),
        ("Statins decrease LDL in children.", "effect", "decrease", "Statins", "LDL"),
        ("Tai chi affects falls in older adults.", "association", "increase", "Tai chi", "falls"),
    ],
)
def test_an_exposure_acting_on_an_outcome_in_a_group_keeps_its_reading(
    claim, kind, direction, exposure, outcome
):
    frame = read_claim(claim)
    assert (frame.kind, frame.direction, frame.exposure, frame.outcome) == (
        kind,
        direction,
        exposure,
        outcome,
    )


@pytest.mark.parametrize(
    "claim, exposure, outcome, population",
    [
        (
            "In patients with congenital heart defects, β-blockers significantly improve clinical heart failure "
            "outcomes.",
            "β-blockers",
            "clinical heart failure outcomes",
            "patients with congenital heart defects",
        ),
        ("Among older adults, exercise reduces falls.", "exercise", "falls", "older adults"),
        ("In contrast, aspirin reduces stroke.", "aspirin", "stroke", ""),
    ],
)
def test_who_or_where_a_claim_holds_is_its_population_not_its_exposure(claim, exposure, outcome, population):
    frame = read_claim(claim)
    assert (frame.exposure, frame.outcome, frame.population) == (exposure, outcome, population)
