"""Where the only change a passage states is a comparative said of another subject than the claim's
outcome, the direction reader does not decide alone; a direction verb's other object does not stop it
(SciFact corpus sentences)."""

from __future__ import annotations

from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.passage import read_passage
from lyra_core.direction.verdict import judge_passage
from lyra_resources.models.direction_judge import unstated_judgement

# doc "Vitamin d deficiency in postmenopausal women - biological correlates"
LEVELS = (
    "32 women (26%) were on VD supplementation at the time of evaluation. Among these subjects, the 25OHD "
    "level was significantly higher in those with prior fragility fractures (p=0.018) and osteoporosis "
    "(p=0.008)."
)
# a verb whose object is another thing than the outcome: said of HDL-C, yet the passage is about the trial
RAISING = (
    "Niacin, raising HDL-C in patients with coronary disease, was compared with placebo over three years "
    "of follow-up for cardiovascular events."
)
READ_UP = {"increased": 0.95, "decreased": 0.02, "no_difference": 0.02, "unrelated": 0.01}


def test_a_change_said_of_a_level_is_recorded_as_another_things():
    reading = read_passage(LEVELS, "vitamin D supplementation", "fracture risk")
    assert reading.direction is None and reading.said_of_another == "higher"
    plain = read_passage(
        "Fractures were less frequent with vitamin D supplementation.",
        "vitamin D supplementation",
        "fractures",
    )
    assert plain.direction == "decreased" and plain.said_of_another == ""


def test_the_reader_does_not_decide_where_the_change_stated_is_another_subjects():
    frame = read_claim("Vitamin D supplementation reduces fracture risk.")
    verdict = judge_passage(frame, LEVELS, f"Vitamin D supplementation and fractures. {LEVELS}", READ_UP)
    assert verdict.said_of_another == "higher" and not verdict.direction_stated
    edge = unstated_judgement(verdict, READ_UP, reader_min=0.0)
    assert edge.relation == "NEUTRAL"
    assert edge.reason.startswith(
        "the change it states (“higher”) is said of another thing than the claim's outcome"
    )


def test_a_verbs_other_object_leaves_the_passage_to_the_reader():
    reading = read_passage(RAISING, "niacin", "cardiovascular events")
    assert reading.direction is None and reading.said_of_another == ""
    frame = read_claim("Niacin reduces cardiovascular events.")
    verdict = judge_passage(frame, RAISING, f"Niacin and cardiovascular events. {RAISING}", READ_UP)
    edge = unstated_judgement(verdict, READ_UP, reader_min=0.0)
    assert edge.relation == "REFUTES" and edge.reason.startswith(
        "the direction reader reads an increase (0.95)"
    )


# the same paper's conclusion: the compliance is lower, said of taking the supplement, not of fractures
COMPLIANCE = (
    "The compliance to VD supplementation is lower in subjects without osteoporosis or fragility fractures. "
    "Primary prevention measures should be more actively implemented."
)


def test_a_change_said_of_what_people_do_with_the_arm_is_another_things():
    reading = read_passage(COMPLIANCE, "vitamin D supplementation", "fracture risk")
    assert reading.direction is None and reading.said_of_another == "lower"
    # where adherence is the outcome, its change is the outcome's
    adherence = read_passage(
        "Adherence to statins was higher in the intervention group.", "intervention", "adherence to statins"
    )
    assert adherence.direction == "increased" and adherence.said_of_another == ""


def test_an_arm_named_by_its_initials_is_who_the_comparison_is_said_of():
    # SciFact corpus: a CBT-vs-zopiclone trial's conclusion; "interventions based on CBT" is the exposure's arm
    conclusion = (
        "These results suggest that interventions based on CBT are superior to zopiclone treatment both in "
        "short- and long-term management of insomnia in older adults."
    )
    reading = read_passage(conclusion, "Cognitive behavioral therapy", "insomnia")
    assert reading.direction == "decreased" and reading.cue == "superior" and reading.said_of_another == ""
