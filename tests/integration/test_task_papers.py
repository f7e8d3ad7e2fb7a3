"""A task's papers from a local corpus are ranked as ``lyra search`` ranks them: BM25's candidates
and the papers nearest the question by embedding, fused; the `papers` asset materialized by
Dagster in-process over a corpus written here, the real embedder, a real DuckDB home."""

from __future__ import annotations

import json
from pathlib import Path

from dagster import DagsterInstance, materialize

from lyra_assets.definitions import TASK_RUN_ASSETS, build_resources
from lyra_assets.partitions import TASKS_PARTITION
from lyra_resources.corpus.local_corpus import LocalCorpus
from lyra_resources.corpus.search import hybrid_search
from lyra_resources.models.local_models import LocalModels
from lyra_resources.settings.loading import load_settings
from lyra_resources.store.lyra_store import LyraStore

QUESTION = "Does sleep deprivation impair memory?"
# Paper 2 shares no index term with the question (night, rest, harm, recall …) but is about it;
# papers 4 and 5 share a word with it (sleep; impaired) and are about something else.
CORPUS = [
    {
        "doc_id": 1,
        "title": "Sleep deprivation impairs memory consolidation",
        "abstract": ["Participants deprived of sleep recalled fewer word pairs the next day."],
    },
    {
        "doc_id": 2,
        "title": "A night without rest harms recall of learned word lists",
        "abstract": [
            "Students kept awake all night remembered fewer of the words they had studied than students "
            "who rested."
        ],
    },
    {
        "doc_id": 3,
        "title": "Memory T cells after influenza vaccination",
        "abstract": ["Vaccination induced memory T cells that persisted for a year."],
    },
    {
        "doc_id": 4,
        "title": "Obstructive sleep apnea and cardiovascular disease",
        "abstract": ["Sleep apnea was associated with hypertension and stroke."],
    },
    {
        "doc_id": 5,
        "title": "Impaired glucose tolerance in obese adolescents",
        "abstract": ["Glucose tolerance was impaired in a third of obese adolescents."],
    },
    {
        "doc_id": 6,
        "title": "Vitamin D supplementation and fracture risk",
        "abstract": ["Vitamin D reduced hip fracture risk by 30%."],
    },
]


def write_corpus(path: Path) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in CORPUS))
    return path


def materialize_papers(home: Path, task_id: str):
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task_id])
        result = materialize(
            TASK_RUN_ASSETS,
            partition_key=task_id,
            resources=build_resources(home),
            instance=instance,
            selection=["papers", "claim_scope"],
        )
        assert result.success
        return [e.user_message for e in instance.all_logs(result.run_id)]


def test_a_paper_sharing_no_word_with_the_question_but_close_in_meaning_is_among_the_task_papers(
    lyra_home, tmp_path
):
    corpus = write_corpus(tmp_path / "corpus.jsonl")
    store = LyraStore.at(lyra_home)
    task = store.create_task(QUESTION, {"corpus": [str(corpus)], "papers_per_source": 3})
    logs = materialize_papers(lyra_home, task.id)
    papers = store.read_partition("papers", task.id).sort_values("search_rank")
    titles = papers["title"].tolist()
    assert len(titles) == 3 and titles[0] == "Sleep deprivation impairs memory consolidation"
    assert "A night without rest harms recall of learned word lists" in titles
    assert "Impaired glucose tolerance in obese adolescents" not in titles  # a shared word, another topic
    # the same papers in the same order as `lyra search` gives (its default ranking, stage 3 included)
    settings = load_settings()
    search = hybrid_search(
        LocalCorpus.open(corpus),
        store=store,
        settings=settings,
        models=LocalModels.configured(lyra_home, settings),
    )
    assert titles == [hit.title for hit in search.search(QUESTION, 3)]
    # the first task on the corpus embeds its papers, and says so; the next one reads them from the cache
    assert any(m.startswith(f"embedding {len(CORPUS)} papers of corpus ") for m in logs), logs
    again = store.create_task("Does a night without rest harm recall?", {"corpus": [str(corpus)]})
    assert not any(m.startswith("embedding ") for m in materialize_papers(lyra_home, again.id))
    # with room for every paper, those that share no word with the question and are far from it in
    # meaning stay out: the vitamin D paper is no candidate for a question about sleep and recall
    titles = set(store.read_partition("papers", again.id)["title"])
    assert "A night without rest harms recall of learned word lists" in titles
    assert "Vitamin D supplementation and fracture risk" not in titles
