"""Feedback given while cluster runs execute is all there afterwards: two tasks re-run at once
through the run queue, Dagster's daemon and two `lyra worker` processes, while a person corrects
both graphs from another process writing the same DuckDB file."""

from __future__ import annotations

import os
import time

import pytest
from dagster import DagsterEventType, DagsterRunStatus

from bench.local_servers import lyra_workers
from fixtures.cluster import cluster_daemon, run_of_request, use_cluster, wait_for
from fixtures.tables import feedback_rows
from lyra_assets.execution import run_control
from lyra_assets.graph.publish import PUBLISH_ASSET, store_lock_waits
from lyra_resources.schema import FEEDBACK_TABLES
from lyra_resources.store.generations import published_generation
from lyra_resources.store.locks import lock_waits
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools import explore
from lyra_tools.feedback.apply import apply_feedback
from lyra_tools.feedback.results import FeedbackResult

# Two questions on the small corpus; the second names a claim of its own so that it has two
# adopted claims (one to reject, one whose edge is corrected).
TASKS = [
    ("Does vitamin D reduce fracture risk?", []),
    ("Does sleep loss impair memory?", ["Sleep deprivation reduces recall of word pairs."]),
]


def started_with_a_step(instance, run_id: str) -> bool:
    """The daemon started the run and one of its steps has begun on a worker."""
    return instance.get_run_by_id(run_id).status == DagsterRunStatus.STARTED and bool(
        instance.all_logs(run_id, of_type=DagsterEventType.STEP_START)
    )


def give_feedback(store: LyraStore, task_id: str, n: int) -> tuple[dict, str, list[FeedbackResult]]:
    """Every kind of feedback on the task's published graph: the corrected edge, the rejected
    claim and the results."""
    edges = store.read_partition("nli_edges", task_id)
    claims = store.read_partition("claims", task_id)
    edge = edges.iloc[0].to_dict()
    rejected = next(
        c for c in claims[claims["adoption_status"] == "adopted"]["claim_id"] if c != edge["claim_id"]
    )
    relation = "supports" if edge["relation"] == "REFUTES" else "refutes"
    fragment = store.read_partition("fragments", task_id)["fragment_id"].iat[0]
    results = [
        apply_feedback(
            store,
            task_id,
            "edge_correct",
            {"edge_id": edge["edge_id"], "correct_relation": relation, "reason": "the trial says otherwise"},
        ),
        apply_feedback(store, task_id, "claim_reject", {"claim_id": rejected, "reason": "off topic"}),
        apply_feedback(
            store, task_id, "domain_block", {"domain_pattern": f"spam-{n}.example", "reason": "advertising"}
        ),
        apply_feedback(store, task_id, "fragment_useful", {"fragment_id": fragment}),
        apply_feedback(store, task_id, "add_note", {"target_id": task_id, "note": "check the 2024 cohort"}),
    ]
    assert all(r.changed for r in results), [r.outcome for r in results]
    return {**edge, "corrected_to": relation}, rejected, results


@pytest.mark.slow
def test_feedback_given_during_two_cluster_runs_is_all_kept(
    lyra_home, small_corpus, postgres_url, redis_url, lyra_settings, local_profile, tmp_path, monkeypatch
):
    home, began = lyra_home, time.monotonic()
    monkeypatch.setenv("LYRA_STORE", "postgres")  # the cluster's store from the first generation on
    monkeypatch.setenv("LYRA_POSTGRES_URL", postgres_url)
    store = LyraStore(home=str(home))
    tasks = [
        store.create_task(q, {"corpus": [str(small_corpus)], **({"claims": c} if c else {})})
        for q, c in TASKS
    ]
    for task in tasks:  # the first generation, run locally
        assert run_control.run_task(task.id, home).success
    untouched = feedback_rows(store)
    first_generation_s = time.monotonic() - began

    use_cluster(lyra_settings, postgres_url, broker=redis_url)
    with lyra_workers(2, home, dict(os.environ), tmp_path), cluster_daemon(home) as (instance, tick):
        workers_ready_s = time.monotonic() - began
        requests = [run_control.queue_task(task.id, home).request_id for task in tasks]
        run_ids = [run_of_request(instance, request, tick) for request in requests]
        wait_for(
            lambda: all(started_with_a_step(instance, r) for r in run_ids),
            tick,
            300,
            "both runs started with a step on a worker",
        )
        waits_before = lock_waits()
        given = [give_feedback(store, task.id, n) for n, task in enumerate(tasks)]
        feedback_waits = lock_waits().since(waits_before)
        given_at = time.time()
        written = feedback_rows(store)
        wait_for(
            lambda: all(instance.get_run_by_id(r).is_finished for r in run_ids), tick, 300, "both runs to end"
        )
        assert [instance.get_run_by_id(r).status for r in run_ids] == [DagsterRunStatus.SUCCESS] * 2
        published_at = [
            e.timestamp
            for r in run_ids
            for e in instance.all_logs(r, of_type=DagsterEventType.STEP_START)
            if e.step_key == PUBLISH_ASSET
        ]
        run_waits = [store_lock_waits(instance, r) for r in run_ids]
        rows = [run_control.sync_task_status(store, instance, task.id) for task in tasks]
    assert [(row.status, row.last_run_id) for row in rows] == [("completed", r) for r in run_ids]

    assert len(published_at) == 2 and given_at < min(published_at)  # the feedback came before either publish
    added = {t: len(written[t]) - len(untouched[t]) for t in FEEDBACK_TABLES}
    assert all(added.values()), added  # every feedback table got rows
    assert feedback_rows(store) == written  # not one feedback row lost or changed by the runs
    events = {row[0] for row in store.fetch_df("SELECT id FROM feedback_events").itertuples(index=False)}
    assert {r.event_id for _, _, results in given for r in results} <= events
    for task, run_id, (edge, rejected, _) in zip(tasks, run_ids, given, strict=True):
        assert published_generation(store, task.id).run_id == run_id  # what follows reads the new generation
        assert edge["edge_id"] in set(store.read_partition("nli_edges", task.id)["edge_id"])
        evidence = explore.claim_evidence(store, edge["claim_id"], task.id, limit=20).evidence
        [corrected] = [i for i in getattr(evidence, edge["corrected_to"]) if i.edge_id == edge["edge_id"]]
        assert corrected.human_corrected
        assert rejected in set(store.read_partition("claims", task.id)["claim_id"])
        assert explore.evidence_summary(store, task.id).statistics.rejected_claims == 1  # still hidden
    print(
        f"first generation {first_generation_s:.0f}s, workers ready at {workers_ready_s:.0f}s, "
        f"second generation done at {time.monotonic() - began:.0f}s; "
        f"feedback for two tasks written in {feedback_waits.waited_s:.1f}s of lock waits "
        f"({feedback_waits.conflicts} conflicts); the runs' store lock waits: {run_waits}; "
        f"rows added per table: {added}"
    )
