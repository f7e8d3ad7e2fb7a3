"""One rule for nulls (docs/direction.md#nulls): a finding of no difference for the claim's exposure
and outcome, stated in the passage's words or figures, counts against a claim of an effect as an
opposite finding does, at its full probability, unless its interval is too wide to rule the effect
out. Read on real abstract sentences of the SciFact corpus."""

import json
from pathlib import Path

import pytest

from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.verdict import counted_relation, judge_passage

# The reader's probabilities where it leans to a reading without being sure of it
UNSURE_NULL = {"increased": 0.45, "decreased": 0.0, "no_difference": 0.5, "unrelated": 0.05}
SURE_NULL = {"increased": 0.02, "decreased": 0.02, "no_difference": 0.94, "unrelated": 0.02}


def _paper(shared_data: Path, doc_id: int) -> tuple[str, str]:
    """The title and abstract of a SciFact paper, as a task's paper text and its sentences."""
    for line in (shared_data / "scifact" / "corpus.jsonl").open():
        doc = json.loads(line)
        if int(doc["doc_id"]) == doc_id:
            return doc["title"], " ".join(doc["abstract"])
    raise LookupError(doc_id)


def _sentence(text: str, start: str, end: str) -> str:
    at = text.index(start)
    return text[at : text.index(end, at) + len(end)]


def _vote(claim: str, passage: str, paper: str, probs: dict[str, float]) -> tuple[str, float]:
    judged = judge_passage(read_claim(claim), passage, paper, probs)
    p = judged.p_refutes if judged.relation == "REFUTES" else judged.p_supports
    return counted_relation(judged.relation, judged.p_supports, judged.p_refutes), p


def test_a_null_in_words_counts_as_an_opposite_finding_read_as_surely_would(shared_data):
    title, abstract = _paper(shared_data, 10984005)  # ADHD medications and serious cardiovascular events
    null = _sentence(abstract, "CONCLUSIONS Among young and middle-aged adults", "events.")
    assert "was not associated with an increased risk of serious cardiovascular events" in null
    claim = "ADHD medications increase the risk of serious cardiovascular events."
    # the reader leans to "no difference" (0.55 once the words state it) over an increase (0.45): the null
    # refutes at 0.55, as a decrease read at 0.55 would; it used to count 0.8 of that, under the vote's 0.5
    relation, p = _vote(claim, null, f"{title} {abstract}", UNSURE_NULL)
    assert relation == "REFUTES" and p == pytest.approx(0.55, abs=0.01)


def test_a_null_with_a_narrow_interval_refutes_at_the_figures_certainty(shared_data):
    title, abstract = _paper(shared_data, 33409100)  # homocysteine lowering in chronic kidney disease
    null = _sentence(abstract, "It was lowered 6.3 micromol/L", "0.91-1.18).")
    assert "no significant effect on mortality" in null and "0.91-1.18" in null
    relation, p = _vote("Vitamin therapy reduces mortality.", null, f"{title} {abstract}", SURE_NULL)
    assert relation == "REFUTES" and p == pytest.approx(0.95, abs=0.01)  # the null and the figures' 0.05 up


def test_a_null_with_a_wide_interval_is_weak_evidence_and_casts_no_vote(shared_data):
    title, abstract = _paper(shared_data, 34369306)  # nicotine replacement therapy in adolescents
    null = _sentence(abstract, "Intention-to-treat analyses showed", "covariates.")
    assert "OR=1.54, 95% CI=0.57, 4.16" in null  # no significant effect, and no evidence of none
    claim = "Nicotine replacement therapy increases abstinence rates."
    judged = judge_passage(read_claim(claim), null, f"{title} {abstract}", SURE_NULL)
    # 0.05 down (the figures' rest) and 0.4 of the 0.9 null: under neutral's share, and under the vote's 0.5
    assert judged.p_refutes == pytest.approx(0.41, abs=0.01) and judged.relation == "NEUTRAL"


ASPIRIN = "Aspirin reduces the risk of colorectal cancer."


def test_a_null_whose_interval_reaches_the_claimed_effect_is_imprecise(shared_data):
    title, abstract = _paper(shared_data, 15648443)  # CAPP2: aspirin in carriers of Lynch syndrome
    null = _sentence(abstract, "Intention-to-treat analysis of time to first colorectal cancer", "p=0·12).")
    # HR 0.63 (0.35–1.13): not significant, yet a reduction by a third lies inside it; GRADE calls a relative
    # change of 25 % appreciable, so this null cannot refute "reduces" (it used to, at 0.77)
    judged = judge_passage(read_claim(ASPIRIN), null, f"{title} {abstract}", SURE_NULL)
    assert judged.passage_direction == "no_difference" and judged.p_refutes == pytest.approx(0.41, abs=0.01)
    assert counted_relation(judged.relation, judged.p_supports, judged.p_refutes) == "NEUTRAL"


def test_a_subgroups_null_beside_a_significant_finding_is_no_null_of_the_passage(shared_data):
    title, abstract = _paper(shared_data, 43334921)  # aspirin and NSAIDs by genotype, a case-control study
    both = _sentence(abstract, "Regular use was associated with a lower risk", "P = .76).")
    assert "OR, 0.66 [95% CI, 0.62-0.71]" in both and "OR, 0.97 [95% CI, 0.78-1.20]" in both
    judged = judge_passage(read_claim(ASPIRIN), both, f"{title} {abstract}", SURE_NULL)
    assert counted_relation(judged.relation, judged.p_supports, judged.p_refutes) == "NEUTRAL"
