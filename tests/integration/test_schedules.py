"""Scheduled re-runs of watched tasks: the interval, the CLI, the schedule's decisions, the sensor
that keeps the ``tasks`` row, and a scheduled re-run that keeps every piece of feedback.

The pipeline runs in-process on a real store and a real Dagster instance under the test's home,
with instant stand-ins for the models (hashed word counts, a keyword NLI rule)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from dagster import (
    DagsterRun,
    DagsterRunStatus,
    Definitions,
    RunRequest,
    build_schedule_context,
    build_sensor_context,
)
from typer.testing import CliRunner

from fixtures.corpus import SMALL_CORPUS, agent_corpus, write_jsonl
from fixtures.hash_models import HashEmbedder
from fixtures.tables import feedback_rows
from lyra_assets import definitions as lyra_defs
from lyra_assets.execution import run_control
from lyra_assets.execution.run_queue import REQUEST_TAG, task_run_requests_sensor
from lyra_assets.execution.runs import (
    PARTITION_TAG,
    PID_TAG,
    QUESTION_TAG,
    STORE_TAG,
    TASK_JOB,
    TASK_TAG,
    TRIGGER_TAG,
    WATCH_TRIGGER,
    open_instance,
    register_partition,
    task_runs,
    task_tags,
)
from lyra_assets.execution.schedules import WATCH_CRON, watched_tasks_schedule
from lyra_assets.execution.task_status import sync_task_status, task_status_sensor
from lyra_assets.partitions import TASKS_PARTITION
from lyra_core.tasks import TaskOptions, parse_interval
from lyra_resources.models.inference import NLI_RELATION, NliPrediction
from lyra_resources.models.local_models import LocalModels
from lyra_resources.schema import FEEDBACK_TABLES
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.store import run_requests
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools import explore
from lyra_tools.cli import app
from lyra_tools.feedback.apply import apply_feedback

QUESTION = "Does vitamin D supplementation reduce fracture risk?"
NEW_PAPER = {
    "doc_id": 5,
    "title": "Vitamin D and fracture risk in a new cohort of older men",
    "abstract": [
        "In 5,000 older men, vitamin D supplementation reduced fracture risk over five years.",
        "The effect was strongest for hip fractures.",
    ],
}


# -- instant models ---------------------------------------------------------------------------------


class KeywordNli:
    version = "keyword-nli@test"

    def load(self) -> None:
        pass

    def predict(self, pairs: list[tuple[str, str]], on_batch=None) -> list[NliPrediction]:
        out = []
        for premise, _ in pairs:
            text = premise.lower()
            label = (
                "contradiction"
                if ("did not" in text or "no significant" in text)
                else "entailment"
                if "reduced" in text
                else "neutral"
            )
            probs = {lab: (0.8 if lab == label else 0.1) for lab in NLI_RELATION}
            out.append(NliPrediction(label=label, relation=NLI_RELATION[label], confidence=0.8, probs=probs))
        if on_batch:
            on_batch(len(pairs))
        return out


class StubModels(LocalModels):
    def embedder(self):
        return HashEmbedder()

    def nli(self, *args, **kwargs):
        return KeywordNli()

    def reranker_for(self, corpus_key):
        return None, "skipped: test models"


def stub_definitions(home=None, settings=None) -> Definitions:
    """Lyra's task pipeline, schedule and sensor with the stand-in models."""
    return Definitions(
        assets=lyra_defs.TASK_RUN_ASSETS,
        asset_checks=lyra_defs.CHECKS,
        jobs=[lyra_defs.task_pipeline],
        schedules=[watched_tasks_schedule],
        sensors=[task_status_sensor, task_run_requests_sensor],
        resources={**lyra_defs.build_resources(home), "models": StubModels(embedder_name="test-hash")},
    )


# -- helpers ----------------------------------------------------------------------------------------


@pytest.fixture
def instance(lyra_home):
    with open_instance(lyra_home) as opened:
        yield opened


def evaluate(defs: Definitions, instance, store: LyraStore, when: datetime):
    context = build_schedule_context(
        instance=instance,
        resources={"store": store},
        scheduled_execution_time=when,
        repository_def=defs.get_repository_def(),
    )
    return watched_tasks_schedule.evaluate_tick(context)


def sync_rows(instance, store: LyraStore, cursor: str | None = None):
    context = build_sensor_context(instance=instance, resources={"store": store}, cursor=cursor)
    return task_status_sensor.evaluate_tick(context)


def execute(defs: Definitions, instance, request):
    """What the daemon does with a run request, in this process."""
    return defs.resolve_job_def(TASK_JOB).execute_in_process(
        instance=instance, partition_key=request.partition_key, tags=request.tags, raise_on_error=False
    )


def add_run(instance, task_id: str, status: DagsterRunStatus, **tags: str) -> str:
    run_id = str(uuid.uuid4())
    instance.add_run(
        DagsterRun(job_name=TASK_JOB, run_id=run_id, status=status, tags={PARTITION_TAG: task_id, **tags})
    )
    return run_id


def watched_task(home, corpus, every: str = "1d", query: str = QUESTION, claims: list[str] | None = None):
    options = TaskOptions(corpus=[str(corpus)], watch_every=every, claims=claims or []).model_dump(
        exclude_none=True, exclude_defaults=True
    )
    return LyraStore.at(home).create_task(query, options)


# -- the interval -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("15m", timedelta(minutes=15)),
        ("30m", timedelta(minutes=30)),
        ("12h", timedelta(hours=12)),
        ("1d", timedelta(days=1)),
        ("2w", timedelta(weeks=2)),
        (" 3 D ", timedelta(days=3)),
        ("0000001d", timedelta(days=1)),
    ],
)
def test_parse_interval(text, expected):
    assert parse_interval(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("14m", "shorter than the minimum of 15 minutes"),
        ("0d", "shorter than the minimum"),
        ("1y", "whole number followed by m, h, d or w"),
        ("daily", "whole number"),
        ("1.5d", "whole number"),
        ("-1d", "whole number"),
        ("", "whole number"),
        ("53w", "longer than the maximum of one year"),
        ("9999999w", "longer than the maximum of one year"),
        ("99999999999w", "longer than the maximum of one year"),
        ("9" * 5000 + "d", "longer than the maximum of one year"),  # not read as a number at all
    ],
)
def test_bad_intervals_say_why(text, message):
    with pytest.raises(ValueError, match=message):
        parse_interval(text)


def test_task_options_keep_one_spelling_and_forbid_unknown_keys():
    assert TaskOptions(watch_every=" 12 H").watch_every == "12h"
    assert TaskOptions().model_dump(exclude_none=True, exclude_defaults=True) == {}
    with pytest.raises(ValueError, match="shorter than the minimum"):
        TaskOptions(watch_every="5m")
    with pytest.raises(ValueError, match="extra"):
        TaskOptions.model_validate({"watch": "1d"})


# -- the CLI ----------------------------------------------------------------------------------------

cli = CliRunner()


def invoke(*args: str):
    return cli.invoke(app, list(args), catch_exceptions=False)


def test_watch_and_unwatch_a_task(lyra_home, small_corpus):
    task = LyraStore.at(lyra_home).create_task(QUESTION, {"corpus": [str(small_corpus)]})
    home = str(lyra_home)
    bad = invoke("task", "watch", task.id, "--every", "5m", "--home", home)
    assert bad.exit_code == 1 and "minimum of 15 minutes" in bad.output
    assert "watch_every" not in LyraStore.at(home).require_task(task.id).options

    ok = invoke("task", "watch", task.id, "--every", "12h", "--home", home)
    assert ok.exit_code == 0 and "every 12h" in ok.output, ok.output
    assert LyraStore.at(home).require_task(task.id).options == {
        "corpus": [str(small_corpus)],
        "watch_every": "12h",
    }
    with open_instance(home) as inst:  # the schedule can request runs of its partition
        assert inst.has_dynamic_partition(TASKS_PARTITION, task.id)
    assert "every 12h" in invoke("task", "list", "--home", home).output
    status = invoke("task", "status", task.id, "--home", home)
    assert status.exit_code == 0 and "watch: every 12h: due at the next hourly check" in " ".join(
        status.output.split()
    )

    off = invoke("task", "unwatch", task.id, "--home", home)
    assert off.exit_code == 0 and "no longer" in off.output
    assert LyraStore.at(home).require_task(task.id).options == {"corpus": [str(small_corpus)]}
    assert "every 12h" not in invoke("task", "list", "--home", home).output
    assert "was not watched" in invoke("task", "unwatch", task.id, "--home", home).output
    assert invoke("task", "watch", "task_00000000", "--home", home).exit_code == 1


def test_run_with_watch(lyra_home, small_corpus, monkeypatch):
    home = str(lyra_home)
    refused = invoke("run", QUESTION, "--corpus", str(small_corpus), "--watch", "10m", "--home", home)
    assert refused.exit_code == 1 and "minimum of 15 minutes" in refused.output
    assert LyraStore.at(home).list_tasks() == []  # nothing created

    monkeypatch.setattr(run_control, "build_definitions", stub_definitions)
    result = invoke("run", QUESTION, "--corpus", str(small_corpus), "--watch", "1D", "--home", home)
    assert result.exit_code == 0, result.output
    [task] = LyraStore.at(home).list_tasks()
    assert task.options["watch_every"] == "1d" and task.status == "completed"
    assert "every 1d" in invoke("task", "list", "--home", home).output


def test_mcp_create_task_takes_watch_every(tmp_path, small_corpus):
    import anyio
    from mcp import Client

    from lyra_tools.mcp.server import build_server

    home = tmp_path / "home"
    server = build_server(
        home, launcher=lambda task_id, root: (os.getpid(), root / "logs" / f"{task_id}.log")
    )
    corpus = agent_corpus(home, small_corpus)

    async def calls():
        async with Client(server, read_timeout_seconds=60) as client:
            return [
                await client.call_tool(
                    "create_task",
                    {
                        "query": "Does exercise raise bone density?",
                        "options": {"corpus": [str(corpus)], "watch_every": every},
                    },
                )
                for every in ("2w", "5m")
            ]

    created, refused = anyio.run(calls)
    assert not created.is_error and refused.is_error
    assert "options.watch_every" in refused.content[0].text and "15 minutes" in refused.content[0].text
    [task] = LyraStore.at(home).list_tasks()
    assert task.id == created.structured_content["task_id"] and task.options == {
        "corpus": [str(corpus)],
        "watch_every": "2w",
    }


# -- the schedule -----------------------------------------------------------------------------------


def test_schedule_is_hourly_on_the_task_job_and_on_by_default(lyra_home):
    defs = lyra_defs.build_definitions(lyra_home)
    schedule = defs.get_repository_def().get_schedule_def("watched_tasks_schedule")
    assert schedule.job_name == TASK_JOB and schedule.cron_schedule == WATCH_CRON == "0 * * * *"
    assert schedule.default_status.value == "RUNNING"
    sensor = defs.get_repository_def().get_sensor_def("task_status_sensor")
    assert sensor.default_status.value == "RUNNING"


def test_schedule_requests_only_due_tasks_that_are_not_running(lyra_home, small_corpus, instance):
    store, defs = LyraStore.at(lyra_home), stub_definitions(lyra_home)
    now = datetime.now(UTC)
    assert evaluate(defs, instance, store, now).skip_message.startswith("no task is watched")

    never_run = watched_task(lyra_home, small_corpus, "1d", "vitamin D and fractures")
    recent = watched_task(lyra_home, small_corpus, "1d", "sleep and memory")
    old = watched_task(lyra_home, small_corpus, "12h", "exercise and bone density")
    unwatched = store.create_task("calcium and kidney stones", {"corpus": [str(small_corpus)]})
    ui_running = watched_task(lyra_home, small_corpus, "30m", "vitamin D in women")
    cli_running = watched_task(lyra_home, small_corpus, "30m", "vitamin D in men")
    dead_cli = watched_task(lyra_home, small_corpus, "30m", "vitamin D in children")
    for task in store.list_tasks():
        register_partition(instance, task.id)
    for task in (recent, old, unwatched):
        add_run(instance, task.id, DagsterRunStatus.SUCCESS, **{TASK_TAG: task.id})
    add_run(instance, ui_running.id, DagsterRunStatus.STARTED)  # launched from the UI: no Lyra tag
    add_run(
        instance,
        cli_running.id,
        DagsterRunStatus.STARTED,
        **{TASK_TAG: cli_running.id, PID_TAG: str(os.getpid())},
    )
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    add_run(
        instance, dead_cli.id, DagsterRunStatus.STARTED, **{TASK_TAG: dead_cli.id, PID_TAG: str(gone.pid)}
    )

    # 13 hours on: the 12h task is due, the 1d one is not; runs in progress hold their tasks back
    later = now + timedelta(hours=13)
    result = evaluate(defs, instance, store, later)
    requested = {r.partition_key: r for r in result.run_requests}
    assert set(requested) == {never_run.id, old.id, dead_cli.id}
    request = requested[old.id]
    assert request.tags[TASK_TAG] == old.id and request.tags[TRIGGER_TAG] == WATCH_TRIGGER
    assert request.tags[QUESTION_TAG] == old.query  # the UI's run list says what the run is about
    assert request.tags["dagster/schedule_name"] == "watched_tasks_schedule"
    assert request.run_key == f"{old.id}@{later:%Y-%m-%dT%H:%MZ}"
    # the run whose process died was marked failed, so it no longer holds the task back
    [dead] = task_runs(instance, dead_cli.id)
    assert dead.dagster_run.status == DagsterRunStatus.FAILURE

    # at 25 hours the daily task is due too; unwatched and running tasks never are
    assert {
        r.partition_key for r in evaluate(defs, instance, store, now + timedelta(hours=25)).run_requests
    } == {never_run.id, recent.id, old.id, dead_cli.id}
    # runs start a little after the tick that asked for them: that does not put the next run off a whole hour
    store.update_task(recent.id, options={"corpus": [str(small_corpus)], "watch_every": "1h"})
    assert recent.id in {
        r.partition_key for r in evaluate(defs, instance, store, now + timedelta(minutes=56)).run_requests
    }
    # unwatched: never requested, however late
    store.update_task(old.id, options={"corpus": [str(small_corpus)]})
    late = evaluate(defs, instance, store, now + timedelta(weeks=10))
    assert old.id not in {r.partition_key for r in late.run_requests}
    assert ui_running.id not in {r.partition_key for r in late.run_requests}


def test_schedule_says_why_it_skips(lyra_home, small_corpus, instance):
    store, defs = LyraStore.at(lyra_home), stub_definitions(lyra_home)
    task = watched_task(lyra_home, small_corpus, "1d")
    register_partition(instance, task.id)
    run_id = add_run(instance, task.id, DagsterRunStatus.STARTED)
    busy = evaluate(defs, instance, store, datetime.now(UTC))
    assert busy.run_requests == [] and f"run {run_id} is still in progress" in busy.skip_message
    instance.report_run_failed(instance.get_run_by_id(run_id), message="test")
    early = evaluate(defs, instance, store, datetime.now(UTC) + timedelta(hours=2))
    assert early.run_requests == [] and "next due after" in early.skip_message


def test_schedule_does_not_rerun_a_task_whose_input_no_longer_checks(
    lyra_home, tmp_path, small_corpus, instance
):
    store, defs = LyraStore.at(lyra_home), stub_definitions(lyra_home)
    corpus = tmp_path / "moved.jsonl"
    corpus.write_text(small_corpus.read_text())
    gone = watched_task(lyra_home, corpus, "1d", "vitamin D and fractures")
    kept = watched_task(lyra_home, small_corpus, "1d", "sleep and memory")
    corpus.unlink()
    result = evaluate(defs, instance, store, datetime.now(UTC))
    assert [r.partition_key for r in result.run_requests] == [kept.id]  # no run that could only fail
    assert not task_runs(instance, gone.id)
    store.update_task(
        kept.id, options={"corpus": [str(small_corpus)]}
    )  # unwatched: only the broken one is left
    skipped = evaluate(defs, instance, store, datetime.now(UTC))
    assert skipped.run_requests == []
    assert f"{gone.id}: not re-run:" in skipped.skip_message and str(corpus) in skipped.skip_message


# -- the sensor -------------------------------------------------------------------------------------


def test_sensor_keeps_the_task_row_of_scheduled_runs(lyra_home, small_corpus, instance):
    store = LyraStore.at(lyra_home)
    task = watched_task(lyra_home, small_corpus)
    register_partition(instance, task.id)
    scheduled = {TASK_TAG: task.id, TRIGGER_TAG: WATCH_TRIGGER}
    first = add_run(instance, task.id, DagsterRunStatus.STARTED, **scheduled)
    tick = sync_rows(instance, store)
    row = store.require_task(task.id)
    assert (row.status, row.last_run_id) == ("running", first) and first in tick.skip_message
    assert sync_rows(instance, store, tick.cursor).skip_message == "no task's run changed state"

    instance.report_run_failed(instance.get_run_by_id(first), message="test")
    sync_rows(instance, store, tick.cursor)
    row = store.require_task(task.id)
    assert (row.status, row.last_run_id) == ("failed", first) and row.error

    # a later run (the CLI's) owns the row: the scheduled run's news does not overwrite it
    store.update_task(task.id, status="completed", error=None)
    add_run(instance, task.id, DagsterRunStatus.SUCCESS, **{TASK_TAG: task.id, PID_TAG: "1"})
    sync_rows(instance, store)
    assert store.require_task(task.id).status == "completed"
    # every task's run is followed, whoever started it (the UI, MCP, the CLI)
    other = watched_task(lyra_home, small_corpus, "1d", "sleep and memory")
    started = add_run(instance, other.id, DagsterRunStatus.STARTED, **{TASK_TAG: other.id})
    sync_rows(instance, store)
    assert (store.require_task(other.id).status, store.require_task(other.id).last_run_id) == (
        "running",
        started,
    )


def test_stop_cancels_a_scheduled_run(lyra_home, small_corpus, instance):
    store = LyraStore.at(lyra_home)
    task = watched_task(lyra_home, small_corpus)
    register_partition(instance, task.id)
    run_id = add_run(
        instance, task.id, DagsterRunStatus.STARTED, **{TASK_TAG: task.id, TRIGGER_TAG: WATCH_TRIGGER}
    )
    cursor = sync_rows(instance, store).cursor
    assert store.require_task(task.id).status == "running"
    assert run_control.stop_task(task.id, lyra_home) == [run_id]
    assert instance.get_run_by_id(run_id).status == DagsterRunStatus.CANCELED
    sync_rows(instance, store, cursor)
    row = store.require_task(task.id)
    assert (row.status, row.last_run_id, row.error) == ("stopped", run_id, "stopped by user")


def test_scheduled_reruns_bring_new_papers_and_keep_every_correction(lyra_home, tmp_path, instance):
    corpus = write_jsonl(tmp_path / "library.jsonl", SMALL_CORPUS)
    store, defs = LyraStore.at(lyra_home), stub_definitions(lyra_home)
    # a user's claim is always adopted: with the hash embedder few extracted claims reach min_relevance
    task = watched_task(
        lyra_home, corpus, "1d", claims=["High-dose vitamin D lowers the risk of hip fracture."]
    )
    register_partition(instance, task.id)

    # first tick: never run, so due; the daemon runs it; the sensor records it in the tasks row
    [request] = evaluate(defs, instance, store, datetime.now(UTC)).run_requests
    assert request.partition_key == task.id
    first = execute(defs, instance, request)
    assert first.success
    cursor = sync_rows(instance, store).cursor
    row = store.require_task(task.id)
    assert (row.status, row.last_run_id, row.error) == ("completed", first.run_id, None)
    assert evaluate(defs, instance, store, datetime.now(UTC)).run_requests == []  # ran just now
    assert NEW_PAPER["title"] not in set(store.read_partition("papers", task.id)["title"])

    # a person corrects the graph: every feedback table gets rows
    edges = store.read_partition("nli_edges", task.id)
    claims = store.read_partition("claims", task.id)
    edge = edges[edges["relation"] != "REFUTES"].iloc[0]
    other_claim = next(
        c for c in claims[claims["adoption_status"] == "adopted"]["claim_id"] if c != edge["claim_id"]
    )
    fragment = store.read_partition("fragments", task.id)["fragment_id"].iat[0]
    apply_feedback(
        store,
        task.id,
        "edge_correct",
        {"edge_id": edge["edge_id"], "correct_relation": "refutes", "reason": "the trial says the opposite"},
    )
    apply_feedback(store, task.id, "claim_reject", {"claim_id": other_claim, "reason": "off topic"})
    apply_feedback(
        store, task.id, "domain_block", {"domain_pattern": "spam-site.com", "reason": "advertising"}
    )
    apply_feedback(store, task.id, "fragment_useful", {"fragment_id": fragment})
    apply_feedback(store, task.id, "add_note", {"target_id": task.id, "note": "check the 2024 cohort"})
    before = feedback_rows(store)
    assert all(before[t] for t in FEEDBACK_TABLES), {t: len(r) for t, r in before.items()}

    # a new paper appears in the source; a day later the schedule re-runs the task
    write_jsonl(corpus, [*SMALL_CORPUS, NEW_PAPER])
    [again] = evaluate(defs, instance, store, datetime.now(UTC) + timedelta(days=1)).run_requests
    second = execute(defs, instance, again)
    assert second.success and second.run_id != first.run_id
    assert second.dagster_run.tags[TRIGGER_TAG] == WATCH_TRIGGER
    assert {e.asset_key.to_user_string() for e in second.get_asset_materialization_events()} >= {
        "papers",
        "fragments",
        "claims",
        "nli_edges",
        "claim_scores",
    }  # every table was rewritten

    assert NEW_PAPER["title"] in set(store.read_partition("papers", task.id)["title"])
    assert feedback_rows(store) == before  # not one feedback row lost or changed
    ev = explore.claim_evidence(store, edge["claim_id"], task.id)
    [corrected] = [i for i in ev.evidence.refutes if i.edge_id == edge["edge_id"]]
    assert corrected.human_corrected
    assert explore.evidence_summary(store, task.id).statistics.rejected_claims == 1  # still hidden
    sync_rows(instance, store, cursor)
    row = store.require_task(task.id)
    assert (row.status, row.last_run_id) == ("completed", second.run_id)

    # a scheduled run that fails leaves the rows readable and says why in the tasks row
    # (the corpus disappears between the tick that asked for the run and the run itself)
    counts = store.row_counts(task.id)
    [third_request] = evaluate(defs, instance, store, datetime.now(UTC) + timedelta(days=2)).run_requests
    corpus.unlink()
    third = execute(defs, instance, third_request)
    assert not third.success
    sync_rows(instance, store, cursor)
    row = store.require_task(task.id)
    assert (row.status, row.last_run_id) == ("failed", third.run_id) and row.error.startswith("paper_search:")
    assert store.row_counts(task.id) == counts and feedback_rows(store) == before


# -- runs asked of the cluster ----------------------------------------------------------------------


# The sensor as a cluster's daemon evaluates it; the runs themselves execute here, as stub_definitions do.
CLUSTER = LyraSettings.model_validate(
    {"cluster": {"profile": "cluster", "postgres_url": "postgresql://unused"}}
)


def requested_runs(instance, store: LyraStore, settings: LyraSettings = CLUSTER) -> list[RunRequest]:
    """What the daemon's sensor asks for: its run requests (none when it skips)."""
    context = build_sensor_context(instance=instance, resources={"store": store, "settings": settings})
    answer = task_run_requests_sensor(context)
    return answer if isinstance(answer, list) else []


def test_a_run_asked_of_the_cluster_is_created_from_its_request_once_and_the_row_follows_it(
    lyra_home, small_corpus, instance
):
    store = LyraStore.at(lyra_home)
    done = store.create_task(QUESTION, {"corpus": [str(small_corpus)]})
    register_partition(instance, done.id)
    first = execute(
        stub_definitions(lyra_home),
        instance,
        RunRequest(partition_key=done.id, tags=task_tags(done.id, QUESTION)),
    )
    assert first.success and sync_task_status(store, instance, done.id).status == "completed"

    queued = run_control.queue_task(done.id, lyra_home)
    assert (store.require_task(done.id).status, queued.request_id) == (
        "queued",
        run_requests.pending(store)[0].request_id,
    )
    [request] = requested_runs(instance, store)
    assert request.run_key == request.tags[REQUEST_TAG] == queued.request_id  # one run per request
    assert request.partition_key == request.tags[TASK_TAG] == done.id
    assert request.tags[STORE_TAG] == store.where
    # Until the daemon creates the run, the row reads queued (not the earlier run's outcome), the
    # request is asked again under the same run key, and no second run can be asked for.
    assert sync_task_status(store, instance, done.id).status == "queued"
    assert [r.run_key for r in requested_runs(instance, store)] == [queued.request_id]
    with pytest.raises(RuntimeError, match="already has a run in progress"):
        run_control.queue_task(done.id, lyra_home)

    second = execute(stub_definitions(lyra_home), instance, request)  # what the daemon does with it
    assert second.success
    row = sync_task_status(store, instance, done.id)
    assert (row.status, row.last_run_id) == ("completed", second.run_id)
    assert run_requests.pending(store) == [] and requested_runs(instance, store) == []


def test_a_run_asked_of_the_cluster_and_stopped_before_it_exists_is_withdrawn(
    lyra_home, small_corpus, instance
):
    store = LyraStore.at(lyra_home)
    task = store.create_task(QUESTION, {"corpus": [str(small_corpus)]})
    kept = store.create_task("Does sleep loss impair memory?", {"corpus": [str(small_corpus)]})
    queued = run_control.queue_task(task.id, lyra_home)
    other = run_control.queue_task(kept.id, lyra_home)
    assert run_control.stop_task(task.id, lyra_home) == [queued.request_id]
    assert store.require_task(task.id).status == "stopped"
    assert [r.run_key for r in requested_runs(instance, store)] == [other.request_id]
    assert requested_runs(instance, store, LyraSettings()) == []  # a local home's daemon asks for nothing
    run_control.delete_task(kept.id, lyra_home)  # a deleted task's request goes with it
    assert run_requests.pending(store) == [] and requested_runs(instance, store) == []
    assert run_control.stop_task(task.id, lyra_home) == []  # nothing left to stop
