"""The task assets run through Dagster in-process, on a corpus the tests write and on real SciFact."""

import pytest
from dagster import DagsterInstance, materialize

from fixtures.paths import REPO
from lyra_assets.definitions import TASK_RUN_ASSETS, build_definitions, build_resources
from lyra_assets.execution import run_control, run_progress
from lyra_assets.execution.runs import QUESTION_TAG, TASK_JOB, open_instance, task_runs
from lyra_assets.partitions import TASKS_PARTITION
from lyra_resources.settings.loading import load_settings
from lyra_resources.store.generations import published_scoring_rule
from lyra_resources.store.lyra_store import LyraStore


def new_task(home, query, corpus):
    return LyraStore.at(home).create_task(query, {"corpus": [str(corpus)]})


def test_definitions_load_with_every_asset_partitioned_by_task(lyra_home):
    defs = build_definitions(lyra_home)
    job = defs.resolve_job_def(TASK_JOB)
    assert job.partitions_def is not None and job.partitions_def.name == TASKS_PARTITION
    assert run_progress.asset_names() == [
        "serp_results",
        "papers",
        "claim_scope",
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
        "task_graph",
        "task_report",
    ]


def test_materialize_in_process_writes_the_source_tables(lyra_home, small_corpus):
    task = new_task(lyra_home, "Does vitamin D supplementation reduce fracture risk?", small_corpus)
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task.id])
        result = materialize(
            TASK_RUN_ASSETS,
            partition_key=task.id,
            resources=build_resources(lyra_home),
            instance=instance,
            selection=["papers", "claim_scope", "pages", "fragments"],
        )
    assert result.success
    store = LyraStore.at(lyra_home)
    papers = store.read_partition("papers", task.id).sort_values("search_rank")
    # the sleep paper shares only a word form ("reduced") with the question: BM25 ranks it last
    assert papers.iloc[-1]["title"] == "Sleep deprivation impairs memory consolidation"
    assert papers.iloc[0]["title"].startswith("Vitamin D supplementation")
    assert list(papers.iloc[0]["sources"]) == ["local:1"]
    pages = store.read_partition("pages", task.id)
    assert set(pages["kind"]) == {"abstract"} and len(pages) == len(papers)
    fragments = store.read_partition("fragments", task.id)
    assert set(fragments["page_id"]) == set(pages["page_id"])
    assert any("RR 0.70" in t for t in fragments["text"])
    mat = next(
        m
        for m in result.asset_materializations_for_node("paper_search")
        if m.asset_key.to_user_string() == "papers"
    )
    assert mat.metadata["dagster/row_count"].value == len(papers)
    assert "Vitamin D" in mat.metadata["preview"].value


@pytest.mark.slow
def test_rerun_replaces_rows_and_tasks_stay_apart(lyra_home, small_corpus):
    first = new_task(lyra_home, "vitamin D fracture", small_corpus)
    second = new_task(lyra_home, "sleep memory", small_corpus)
    outcome = run_control.run_task(first.id, lyra_home)
    assert outcome.success, outcome.error
    store = LyraStore.at(lyra_home)
    before = {
        t: store.read_partition(t, first.id)
        for t in ("papers", "pages", "fragments", "fragment_ranking", "claims", "nli_edges", "claim_scores")
    }
    assert run_control.run_task(first.id, lyra_home).success
    assert run_control.run_task(second.id, lyra_home).success
    for table, rows in before.items():  # model outputs included: the pipeline is deterministic
        again = store.read_partition(table, first.id)
        assert len(again) == len(rows)
        lists = [
            c
            for c in rows.columns
            if rows[c].map(lambda v: hasattr(v, "__len__") and not isinstance(v, str)).any()
        ]
        assert again.drop(columns=lists).equals(rows.drop(columns=lists)), table
    assert set(store.read_partition("papers", second.id)["title"]) == {
        "Sleep deprivation impairs memory consolidation"
    }
    assert store.require_task(first.id).status == "completed"
    with store.connect() as conn:  # the rule its claims were scored under stays with the run's graph
        assert published_scoring_rule(conn, first.id) == load_settings().evidence.scoring_rule()
    with open_instance(lyra_home) as instance:
        assert instance.has_dynamic_partition(TASKS_PARTITION, first.id)
        runs = task_runs(instance, first.id)
        assert len(runs) == 2 and all(r.dagster_run.is_success for r in runs)
        assert {r.dagster_run.tags[QUESTION_TAG] for r in runs} == {first.query}


@pytest.mark.slow
def test_failed_run_keeps_previous_rows_readable(lyra_home, small_corpus):
    task = new_task(lyra_home, "vitamin D fracture", small_corpus)
    assert run_control.run_task(task.id, lyra_home).success
    store = LyraStore.at(lyra_home)
    counts = store.row_counts(task.id)
    small_corpus.unlink()  # the corpus disappears: the next run must fail at `papers`
    outcome = run_control.run_task(task.id, lyra_home)
    assert not outcome.success
    assert outcome.assets["papers"].state == "failed"
    assert "corpus.jsonl" in (outcome.error or "")
    assert store.row_counts(task.id) == counts
    assert store.require_task(task.id).status == "failed"


def test_a_task_without_any_source_fails_with_a_clear_message(lyra_home):
    task = LyraStore.at(lyra_home).create_task("anything")
    outcome = run_control.run_task(task.id, lyra_home)
    assert not outcome.success and "--corpus" in outcome.error


@pytest.mark.slow
def test_delete_removes_partition_and_rows(lyra_home, small_corpus):
    keep = new_task(lyra_home, "sleep memory", small_corpus)
    gone = new_task(lyra_home, "vitamin D fracture", small_corpus)
    assert (
        run_control.run_task(keep.id, lyra_home).success and run_control.run_task(gone.id, lyra_home).success
    )
    run_control.delete_task(gone.id, lyra_home)
    store = LyraStore.at(lyra_home)
    assert store.get_task(gone.id) is None
    assert sum(store.row_counts(gone.id).values()) == 0
    assert store.row_counts(keep.id)["fragments"] > 0
    with open_instance(lyra_home) as instance:
        assert not instance.has_dynamic_partition(TASKS_PARTITION, gone.id)
        assert instance.has_dynamic_partition(TASKS_PARTITION, keep.id)


@pytest.mark.slow
def test_real_scifact_corpus(lyra_home, shared_data):
    corpus = shared_data / "scifact" / "corpus.jsonl"
    task = new_task(lyra_home, "Does vitamin D supplementation reduce fracture risk?", corpus)
    outcome = run_control.run_task(task.id, lyra_home)
    assert outcome.success, outcome.error
    store = LyraStore.at(lyra_home)
    papers = store.read_partition("papers", task.id)
    assert len(papers) == 50 and papers["paper_id"].is_unique
    titles = " ".join(papers["title"]).lower()
    assert "vitamin d" in titles and "fracture" in titles
    fragments = store.read_partition("fragments", task.id)
    assert fragments["fragment_id"].is_unique and len(fragments) > len(papers)


def test_workspace_loads_in_dagster(tmp_path):
    """What `dagster dev` loads through workspace.yaml validates as a code location."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = REPO
    dagster = Path(sys.executable).with_name("dagster")
    result = subprocess.run(
        [str(dagster), "definitions", "validate", "-w", "workspace.yaml"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "DAGSTER_HOME": str(tmp_path), "LYRA_HOME": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "All code locations passed validation" in result.stderr + result.stdout


@pytest.mark.slow
def test_a_yes_no_question_is_judged_as_its_hypothesis(lyra_home, small_corpus):
    task = new_task(lyra_home, "Does vitamin D supplementation reduce fracture risk?", small_corpus)
    assert run_control.run_task(task.id, lyra_home).success
    store = LyraStore.at(lyra_home)
    claims = store.read_partition("claims", task.id)
    hypothesis = claims.loc[claims["origin"] == "hypothesis"].iloc[0]
    assert hypothesis["text"] == "Vitamin D supplementation reduces fracture risk."
    assert hypothesis["adoption_status"] == "adopted"
    edges = store.read_partition("nli_edges", task.id)
    mine = edges.loc[edges["claim_id"] == hypothesis["claim_id"]]
    assert len(mine) > 0  # judged against the task's fragments, its edges kept
    answer = store.read_partition("task_answer", task.id).iloc[0]
    assert answer["origin"] == "hypothesis" and answer["hypothesis"] == hypothesis["text"]
    assert answer["papers_judged"] == mine["page_id"].nunique()
    assert answer["not_addressed"] is None  # the vitamin D papers' passages are about vitamin D and fractures
    topics = store.read_partition("claim_topics", task.id)
    assert all(hypothesis["claim_id"] not in list(ids) for ids in topics["claim_ids"])


@pytest.mark.slow
def test_a_question_no_paper_addresses_is_answered_with_the_closest_papers(lyra_home, small_corpus):
    task = new_task(lyra_home, "Is obesity associated with increased risk of type 2 diabetes?", small_corpus)
    assert run_control.run_task(task.id, lyra_home).success
    answer = LyraStore.at(lyra_home).read_partition("task_answer", task.id).iloc[0]
    assert answer["hypothesis"] == "Obesity is associated with increased risk of type 2 diabetes."
    # the two papers that share a word with it ("increased", "risk"); the others are far from it in meaning
    assert answer["not_addressed"] == (
        "No passage in the 2 papers addresses obesity and risk of type 2 diabetes "
        "together; the closest are “Exercise and bone mineral density”; “Vitamin D "
        "supplementation and fracture risk in older adults”"
    )
