"""SciFact's own measures, checked on the worked example of SciFact's evaluation guide."""

from bench.scifact_official import official_scores

GOLD = {52: {"11": ("SUPPORT", [[0, 1], [11]]), "15": ("SUPPORT", [[4]])}}


def test_the_worked_example_scores_as_scifact_scores_it() -> None:
    predicted = {52: {"11": ("SUPPORT", [1, 11, 13]), "16": ("CONTRADICT", [18, 20])}}
    scores = official_scores(predicted, GOLD)
    assert scores["abstract_label"] == (0.5, 0.5, 0.5)
    assert scores["abstract_rationale"] == (0.5, 0.5, 0.5)
    precision, recall, f1 = scores["sentence_selection"]
    assert (precision, recall) == (1 / 5, 1 / 4)
    assert abs(f1 - 2 / 9) < 1e-12
    assert scores["sentence_label"] == scores["sentence_selection"]


def test_a_wrong_label_or_a_rationale_past_the_third_sentence_is_not_credited() -> None:
    predicted = {52: {"11": ("CONTRADICT", [11]), "15": ("SUPPORT", [0, 1, 2, 4])}}
    scores = official_scores(predicted, GOLD)
    assert scores["abstract_label"][0] == 0.5  # 15's label is right, 11's is not
    assert scores["abstract_rationale"][0] == 0.0  # 15's rationale is its fourth sentence
    assert scores["sentence_selection"][0] == 2 / 5  # 11 and 4 complete their sets
    assert scores["sentence_label"][0] == 1 / 5  # only 4 under the right label


def test_nei_is_no_prediction() -> None:
    scores = official_scores({52: {"11": ("NEI", [0, 1])}}, GOLD)
    assert scores["abstract_label"] == (0.0, 0.0, 0.0)
    assert scores["sentence_selection"][1] == 0.0
