"""A run keeps the rows of every asset whose code and inputs are those its rows were built from
(``lyra_assets.reuse``): after a corpus file is rewritten as it was, only the paper search and the
ranking (which reads the corpus) run;
after a paper is added, what it changes runs; ``rebuild`` (``lyra task run --force``) computes all."""

from __future__ import annotations

import os

import pytest

from fixtures.corpus import SMALL_CORPUS, write_jsonl
from fixtures.tables import snapshot
from lyra_assets.execution import run_control
from lyra_resources.schema import PER_TASK_TABLES
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.table_inputs import standing_inputs

WRAPPED = [
    "serp_results",
    "citation_expansions",
    "citation_papers",
    "web_pages",
    "identified_papers",
    "pages",
    "fragments",
    "citation_edges",
    "fragment_ranking",
    "claims",
    "nli_edges",
    "claim_scores",
    "claim_topics",
    "task_answer",
    "domain_verification",
]  # every table but those of the paper search


def computed(store: LyraStore, run_id: str) -> set[str]:
    """The tables ``run_id`` computed (it recorded what their rows were built from)."""
    with store.connect() as conn:
        return {
            r[0]
            for r in conn.execute("SELECT table_name FROM table_inputs WHERE run_id = ?", [run_id]).fetchall()
        }


@pytest.mark.slow
def test_a_rerun_computes_only_the_tables_whose_code_or_inputs_changed(lyra_home, tmp_path):
    corpus = write_jsonl(tmp_path / "corpus.jsonl", SMALL_CORPUS)
    store = LyraStore.at(lyra_home)
    task = store.create_task(
        "Does vitamin D supplementation reduce fracture risk?", {"corpus": [str(corpus)]}
    )
    first = run_control.run_task(task.id, lyra_home)
    assert first.success and computed(store, first.run_id) == set(WRAPPED)
    built = snapshot(store, PER_TASK_TABLES)

    write_jsonl(corpus, SMALL_CORPUS)  # the same papers, a new file: the paper search runs again, and the
    os.utime(corpus, (1, 1))  # ranking (it picks a reranker by corpus); every other table stands
    same = run_control.run_task(task.id, lyra_home)
    assert same.success and computed(store, same.run_id) == {"fragment_ranking"}
    assert same.assets["claims"].kept and not same.assets["fragment_ranking"].kept
    assert snapshot(store, PER_TASK_TABLES) == built  # the kept rows were published as the run's graph
    assert set(standing_inputs(store, task.id, WRAPPED).values()) != {None}

    write_jsonl(
        corpus,
        [
            *SMALL_CORPUS,
            {
                "doc_id": 9,
                "title": "Vitamin D and hip fractures in care homes",
                "abstract": ["Vitamin D reduced hip fractures in 1,200 residents (RR 0.74)."],
            },
        ],
    )
    grown = run_control.run_task(task.id, lyra_home)
    assert grown.success and {"pages", "fragments", "fragment_ranking", "claims", "nli_edges"} <= computed(
        store, grown.run_id
    )
    assert "Vitamin D and hip fractures in care homes" in set(store.read_partition("pages", task.id)["title"])

    rebuilt = run_control.run_task(task.id, lyra_home, rebuild=True)
    assert rebuilt.success and computed(store, rebuilt.run_id) == set(WRAPPED)
