"""A trial the search ranks first is judged on the sentence that holds its finding, and that sentence
votes: CLOTS trial 1 (thigh-length graduated compression stockings after stroke: DVT in 10.0% vs
10.5%, a non-significant difference) against the question whether the stockings reduce deep vein
thrombosis, in a corpus of it and three thrombosis papers from SciFact, run end to end with the
shipped models."""

from __future__ import annotations

import json

import pytest

from fixtures.corpus import write_jsonl
from fixtures.paths import SHARED_DATA
from lyra_assets.execution import run_control
from lyra_resources.store.lyra_store import LyraStore

pytestmark = pytest.mark.slow

QUESTION = "Do thigh-length graduated compression stockings reduce deep vein thrombosis after stroke?"
TITLES = (
    "Effectiveness of thigh-length graduated compression stockings",
    "Prevention of central venous catheter-associated thrombosis",
    "Recurrent venous thromboembolism and bleeding complications",
    "Malignancies, prothrombotic mutations, and the risk of venous thrombosis",
)


@pytest.fixture
def thrombosis_corpus(tmp_path):
    path = SHARED_DATA / "scifact" / "corpus.jsonl"
    if not path.exists():
        pytest.skip("the SciFact corpus is not beside the repository")
    with path.open() as lines:
        records = [r for r in map(json.loads, lines) if r["title"].startswith(TITLES)]
    assert len(records) == len(TITLES)
    return write_jsonl(tmp_path / "corpus.jsonl", records)


def test_the_top_trials_result_sentence_is_judged_and_votes_against_the_hypothesis(
    lyra_home, thrombosis_corpus
):
    store = LyraStore.at(lyra_home)
    task = store.create_task(QUESTION, {"corpus": [str(thrombosis_corpus)]})
    assert run_control.run_task(task.id, lyra_home).success
    hypothesis = store.fetch_df(
        "SELECT claim_id FROM claims WHERE task_id = ? AND origin = 'hypothesis'", [task.id]
    )["claim_id"].iat[0]
    edges = store.fetch_df(
        "SELECT e.*, f.text FROM nli_edges e JOIN fragments f USING (task_id, fragment_id) "
        "WHERE e.task_id = ? AND e.claim_id = ?",
        [task.id, hypothesis],
    )
    finding = edges[edges["text"].str.startswith("The primary outcome occurred in 126 (10.0%)")]
    assert len(finding) == 1, "the trial's result sentence was never judged"
    edge = finding.iloc[0]
    assert edge["relation"] == "REFUTES" and edge["passage_direction"] == "no_difference", edge["reason"]
    assert edge["similarity"] < 0.5  # far from the question's words, and still a vote
    answer = store.fetch_df(
        "SELECT verdict, refuting_papers FROM task_answer WHERE task_id = ?", [task.id]
    ).iloc[0]
    assert answer["refuting_papers"] >= 1 and answer["verdict"] != "unverified"
