"""A task's readers see one whole generation of its graph, whatever happens to a run (issue 15, item 2),
and `lyra task stop` says what it did without rewriting history (item 7)."""

from __future__ import annotations

import json
import signal

import pandas as pd
import pytest

from fixtures.corpus import CHANGED_CORPUS, SMALL_CORPUS, write_jsonl
from fixtures.mcp import call
from fixtures.runs import cli, start_hanging_run
from lyra_assets.execution import run_control
from lyra_assets.execution.runs import active_runs, open_instance
from lyra_resources.schema import PER_TASK_TABLES
from lyra_resources.store.generations import open_generation, publish_generation, published_generation
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.task_tables import table_spec
from lyra_tools import explore
from lyra_tools.mcp.server import build_server


def graph_of(store: LyraStore, task_id: str) -> dict[str, pd.DataFrame]:
    return {t: store.read_partition(t, task_id) for t in PER_TASK_TABLES}


def test_staged_rows_stay_invisible_until_published_and_an_abandoned_generation_cannot_publish(tmp_path):
    store = LyraStore.at(tmp_path / "h")
    task = store.create_task("vitamin D")
    store.replace_partition(
        "claims",
        task.id,
        pd.DataFrame({"claim_id": ["old"], "text": ["old claim"]}).reindex(
            columns=[c for c in table_spec("claims", per_task=True).column_names if c != "task_id"]
        ),
    )
    run = LyraStore.at(tmp_path / "h")
    open_generation(run, task.id, "run-1")
    frame = (
        store.read_partition("claims", task.id)
        .drop(columns="task_id")
        .assign(claim_id="new", text="new claim")
    )
    run.replace_partition("claims", task.id, frame)
    assert list(run.read_partition("claims", task.id)["claim_id"]) == ["new"]  # the run reads its own rows
    assert list(store.read_partition("claims", task.id)["claim_id"]) == [
        "old"
    ]  # everyone else the published ones
    later = LyraStore.at(tmp_path / "h")
    open_generation(later, task.id, "run-2")  # run-1 died: its generation is abandoned
    with pytest.raises(Exception, match="abandoned"):
        publish_generation(run, task.id, "run-1")
    assert publish_generation(later, task.id, "run-2")["claims"] == 1
    assert list(store.read_partition("claims", task.id)["claim_id"]) == [
        "old"
    ]  # a copy of what it started from
    assert published_generation(store, task.id).run_id == "run-2"
    assert list(pd.read_parquet(store.parquet_path("claims", task.id))["claim_id"]) == ["old"]


@pytest.mark.slow
def test_a_run_killed_inside_nli_edges_leaves_the_previous_graph_whole_and_reads_failed(tmp_path):
    home = tmp_path / "h"
    corpus = write_jsonl(tmp_path / "corpus.jsonl", SMALL_CORPUS)
    store = LyraStore.at(home)
    task = store.create_task(
        "Does vitamin D supplementation reduce fracture risk?", {"corpus": [str(corpus)]}
    )
    first = run_control.run_task(task.id, home)
    assert first.success, first.error
    before = graph_of(store, task.id)
    summary_before = explore.evidence_summary(store, task.id).statistics
    assert len(before["nli_edges"]) and len(before["claim_scores"])

    write_jsonl(corpus, CHANGED_CORPUS)  # the next generation's papers, fragments and claims differ
    proc = start_hanging_run(tmp_path, home, task.id)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)

    after = graph_of(store, task.id)
    for table, rows in before.items():  # the whole previous generation, nothing of the killed run's
        pd.testing.assert_frame_equal(after[table], rows, obj=table)
    assert set(after["nli_edges"]["fragment_id"]) <= set(after["fragments"]["fragment_id"])
    assert set(after["claim_scores"]["claim_id"]) <= set(after["claims"]["claim_id"])
    assert len(pd.read_parquet(store.parquet_path("fragments", task.id))) == len(before["fragments"])

    status = cli("task", "status", task.id, "--home", str(home))
    assert status.exit_code == 0
    assert "status: failed" in status.output and "was killed (process" in status.output, status.output
    assert f"the graph shown is the one run {first.run_id} published" in " ".join(status.output.split())
    assert "failed" in cli("task", "list", "--home", str(home)).output
    record = store.require_task(task.id)

    server = build_server(home)
    got_status, summary, listed = call(
        server,
        [
            ("get_status", {"task_id": task.id}),
            ("get_evidence_summary", {"task_id": task.id}),
            ("list_tasks", {}),
        ],
    )
    got_status, summary = json.loads(got_status.content[0].text), json.loads(summary.content[0].text)
    assert got_status["status"] == "failed" and "was killed" in got_status["error"]
    assert got_status["graph_run_id"] == first.run_id and first.run_id in got_status["graph_note"]
    assets = {a["asset"]: a for a in got_status["assets"]}
    assert assets["papers"]["state"] == "done" and assets["claim_scores"]["state"] == "not_run"
    # what the killed run never reached was last materialized by the run whose graph stands
    assert assets["claim_scores"]["last_materialized_at"] is not None
    assert assets["papers"]["last_materialized_at"] > assets["claim_scores"]["last_materialized_at"]
    assert summary["statistics"] == summary_before.model_dump() and first.run_id in summary["graph_note"]
    assert json.loads(listed.content[0].text)["tasks"][0]["status"] == "failed"

    stop = cli("task", "stop", task.id, "--home", str(home))  # nothing runs: nothing may change
    assert stop.exit_code == 0 and "nothing to stop" in stop.output
    assert store.require_task(task.id) == record

    second = run_control.run_task(
        task.id, home
    )  # the next run starts from the published graph and replaces it
    assert second.success, second.error
    fresh = graph_of(store, task.id)
    assert set(fresh["papers"]["title"]) != set(before["papers"]["title"])
    assert set(fresh["nli_edges"]["fragment_id"]) <= set(fresh["fragments"]["fragment_id"])
    assert (
        store.require_task(task.id).status == "completed"
        and explore.task_status(store, task.id).graph_note is None
    )
    with store.connect() as conn:
        assert conn.execute("SELECT count(*) FROM stage_fragments").fetchone()[0] == 0


@pytest.mark.slow
def test_stop_marks_a_running_task_stopped_and_keeps_its_graph(tmp_path, small_corpus):
    home = tmp_path / "h"
    store = LyraStore.at(home)
    task = store.create_task("vitamin D and fractures", {"corpus": [str(small_corpus)]})
    proc = start_hanging_run(tmp_path, home, task.id)
    stop = cli("task", "stop", task.id, "--home", str(home))
    assert stop.exit_code == 0 and "stopped 1 run" in stop.output
    assert proc.wait(timeout=60) != 0
    assert (
        store.require_task(task.id).status == "stopped"
    )  # after the interrupted process wrote its own ending
    assert store.row_counts(task.id)["claims"] == 0  # the stopped run published nothing
    with open_instance(home) as instance:
        assert not active_runs(instance, task.id)
    assert "status: stopped" in cli("task", "status", task.id, "--home", str(home)).output


def test_stop_with_no_run_in_progress_changes_nothing(tmp_path):
    home = tmp_path / "h"
    store = LyraStore.at(home)
    failed = store.create_task("vitamin D and fractures")
    store.update_task(
        failed.id, status="failed", last_run_id="r-1", error="run r-1 was killed (process 4242 gone)"
    )
    done = store.create_task("sleep and memory")
    store.update_task(done.id, status="completed", last_run_id="r-2")
    records = {t: store.require_task(t) for t in (failed.id, done.id)}
    for task_id, record in records.items():
        stop = cli("task", "stop", task_id, "--home", str(home))
        assert stop.exit_code == 0 and f"nothing to stop: {task_id} has no run in progress" in stop.output
        assert store.require_task(task_id) == record  # status, reason and timestamps as they were
    answer = json.loads(call(build_server(home), [("stop_task", {"task_id": failed.id})])[0].content[0].text)
    assert (
        answer["stopped_runs"] == []
        and answer["status"] == "failed"
        and "nothing to stop" in answer["message"]
    )
    assert store.require_task(failed.id) == records[failed.id]
