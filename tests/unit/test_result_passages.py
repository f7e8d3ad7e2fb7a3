"""The best-ranked papers are judged on their result passages: on a real structured abstract (CLOTS
trial 1, SciFact corpus 11718220) the sentence with the trial's figures is chosen, its methods are
not; an unlabelled abstract's passages are chosen by the figures they state."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lyra_core.evidence import with_required
from lyra_core.fragments import make_fragments
from lyra_core.result_passages import states_result, top_paper_results

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "data" / "scifact" / "corpus.jsonl"


def abstract(doc_id: int) -> str:
    if not CORPUS.exists():
        pytest.skip("the SciFact corpus is not beside the repository")
    prefix = f'{{"doc_id": {doc_id},'
    with CORPUS.open() as lines:
        record = json.loads(next(line for line in lines if line.startswith(prefix)))
    return " ".join(record["abstract"])


def test_a_top_ranked_trial_is_judged_on_the_sentence_that_holds_its_figures():
    fragments = make_fragments("pg_clots", abstract(11718220)) + make_fragments(
        "pg_other", abstract(11718220)
    )
    chosen = top_paper_results(
        [f.page_id for f in fragments],
        [f.text for f in fragments],
        [f.sections for f in fragments],
        {"pg_clots": 1, "pg_other": 2},
        top=1,
    )
    texts = [fragments[i].text for i in chosen]
    assert any("126 (10.0%) patients allocated to thigh-length GCS" in t for t in texts)
    assert any(t.startswith("These data do not lend support") for t in texts)  # the interpretation too
    assert not any("(n=1256)" in t for t in texts)  # the methods' figures state no result
    assert all(
        fragments[i].page_id == "pg_clots" for i in chosen
    )  # the second-ranked is not among the best one


def test_an_unlabelled_passage_states_a_result_by_its_figures():
    assert states_result("Risk was lower with aspirin (OR 0.69, 95% CI 0.64-0.74).", ["", ""])
    assert states_result("Mortality fell from 12% to 9%.", [])
    assert not states_result("We enrolled patients from 64 centres in three countries.", ["", ""])
    assert not states_result(
        "Patients were allocated to GCS (n=1256) or no GCS (n=1262).", ["methods", "methods"]
    )


def test_the_hypothesis_meets_every_required_passage_however_far_its_words():
    claims, fragments = np.array([[1.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
    pairs = with_required([[(0, 1.0)]], claims, fragments, {0: [0, 1]})
    assert pairs == [[(0, 1.0), (1, 0.0)]]
