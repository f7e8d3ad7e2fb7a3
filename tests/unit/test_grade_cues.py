"""The report names what lowers an answer's certainty beyond its designs, as GRADE does: risk of bias,
imprecision and indirectness, read from the passages that voted (lyra_core.report.grade_cues). Read
on a real SciFact trial: dexamethasone and bleeding after tonsillectomy in children (doc 23349986), a
trial of 215 stopped early with 22 children bleeding."""

import json

from lyra_core.report.grade_cues import grade_caveats


def _trial(shared_data) -> dict:
    for line in (shared_data / "scifact" / "corpus.jsonl").open():
        doc = json.loads(line)
        if int(doc["doc_id"]) == 23349986:
            return doc
    raise LookupError(23349986)


def test_a_small_stopped_early_paediatric_trial_names_each_weakness(shared_data):
    doc = _trial(shared_data)
    abstract = " ".join(doc["abstract"])
    start = abstract.index("There were 26 postoperative bleeding episodes")
    vote = {
        "title": doc["title"],
        "text": abstract[start : abstract.index("The trial was stopped early", start) + 60],
        "sample_size": 215,
        "effect_figures": "relative risk 6.8, 1.77–16.5",
    }
    assert "stopped early" in vote["text"]
    caveats = grade_caveats(
        "Dexamethasone increases bleeding after tonsillectomy.", "bleeding after tonsillectomy", [vote]
    )
    assert [c.split(":")[0] for c in caveats] == [
        "Risk of bias",
        "Imprecision",
        "Imprecision",
        "Imprecision",
        "Indirectness",
    ]
    assert "215 people in all" in caveats[1] and "few events (26" in caveats[2]
    assert "children or adolescents only" in caveats[4]
    # a question about children is answered directly by a trial in children
    asked = grade_caveats(
        "Dexamethasone increases bleeding after tonsillectomy in children.", "bleeding", [vote]
    )
    assert not any(c.startswith("Indirectness") for c in asked)


def test_a_narrower_outcome_than_the_question_names_is_indirect():
    vote = {"text": "Statins reduced cardiovascular mortality (RR 0.80, 0.71–0.90).", "sample_size": 40000}
    [caveat] = grade_caveats("Statins reduce mortality.", "mortality", [vote])
    assert (
        caveat
        == "Indirectness: the outcome reported is narrower than the question's (cardiovascular mortality)."
    )
    whole = {
        "text": "Statins reduced all-cause mortality and cardiovascular mortality.",
        "sample_size": 40000,
    }
    assert grade_caveats("Statins reduce mortality.", "mortality", [whole]) == []


def test_a_voting_papers_other_passages_count_as_its_own(shared_data):
    doc = _trial(shared_data)
    abstract = " ".join(doc["abstract"])
    start = abstract.index("Two of 53")
    vote = {"paper": "23349986", "text": abstract[start : start + 200], "sample_size": 215}
    assert "stopped early" not in vote["text"]
    other = {"paper": "23349986", "text": abstract[abstract.index("Eight children had to undergo") :]}
    caveats = grade_caveats(
        "Dexamethasone increases bleeding after tonsillectomy in children.", "bleeding", [vote], [other]
    )
    assert caveats[0].startswith("Risk of bias: a trial that voted was stopped early")
