"""A passage about an effect claim's exposure and outcome whose words and figures state no direction
casts no vote by word overlap: only the shipped direction reader, at or above the probability chosen
on held-out data (``evidence.reader_alone_min``, docs/direction.md), may read one there; the edge's
reason says which."""

import pytest

pytestmark = pytest.mark.slow

# The methods of a trial, as its abstract states them (Evidence Inference v2, PMC1863515, a train article)
CLAIM = "Zidovudine prophylaxis reduces haemoglobin level compared with placebo."
METHODS = (
    "Zidovudine prophylaxis initiation at 28 or 35 wk gestation. Haemoglobin level, leucocytes, total "
    "lymphocyte counts, and absolute neutrophil counts were measured at 26, 32, and 35 wk and at delivery."
)


def test_a_real_passage_that_states_no_direction_casts_no_vote_and_says_why():
    from lyra_resources.models.direction_judge import NOT_READ, DirectionJudge

    [shipped] = DirectionJudge().judge_pairs([(CLAIM, METHODS, "")])
    assert shipped.judged_by == "direction" and shipped.relation == "NEUTRAL"
    assert shipped.exposure_matched and shipped.outcome_matched  # about both: the gate does not keep it out
    # the reader reads "no difference", which no word states: it counts half, too little to vote
    assert shipped.reason.startswith(
        "the direction reader reads no difference ("
    ) and shipped.reason.endswith("→ neutral")
    [strict] = DirectionJudge(reader_min=0.9).judge_pairs([(CLAIM, METHODS, "")])
    assert strict.relation == "NEUTRAL" and strict.reason.startswith(
        NOT_READ + " (the reader: no difference, "
    )
    # the older rule handed it to the cross-encoder, which voted on it by overlap
    [before] = DirectionJudge(unstated="cross-encoder").judge_pairs([(CLAIM, METHODS, "")])
    assert before.judged_by == "cross-encoder" and before.relation == "REFUTES"
