"""Learning from corrections: the fixed split, the gate, the sensors (Dagster's sensor test helpers on
a real store), a tiny real LoRA training, activation re-scoring a task with corrections kept, and a
failed training leaving everything as it was. Training here is a smoke run: a few steps, a handful
of pairs; the figures that matter come from ``bench/learning.py``."""

from __future__ import annotations

import json
import random
import uuid
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from dagster import DagsterInstance, DagsterRunStatus, SkipReason, build_sensor_context
from dagster._core.test_utils import create_run_for_test

from fixtures.graphs import write_graph
from fixtures.hash_models import HashModels
from lyra_assets.definitions import build_definitions, build_resources
from lyra_assets.execution.runs import ADAPTER_JOB, QUESTION_TAG, RESCORING_JOB, TASK_TAG, task_tags
from lyra_assets.models import adapter as adapter_assets
from lyra_assets.partitions import TASKS_PARTITION
from lyra_core.model_gate import gate_decision
from lyra_core.splits import is_held_out, split_corrections
from lyra_core.training_metrics import Metrics
from lyra_resources.models import nli_versions
from lyra_resources.models.inference import NliModel
from lyra_resources.models.model_files import DEFAULT_NLI_DIR, base_version
from lyra_resources.schema import TABLES
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.settings.services import LearningSettings
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools import explore
from lyra_tools.feedback.apply import apply_feedback
from lyra_training.adapters import GATE_DIR, Correction, LearningError, TrainingInterrupted
from lyra_training.corrections import learn_from_corrections
from lyra_training.nli_data import read_pairs

BASE = str(DEFAULT_NLI_DIR)
RELATION = {"entailment": "SUPPORTS", "contradiction": "REFUTES", "neutral": "NEUTRAL"}


@pytest.fixture
def store(lyra_home) -> LyraStore:
    return LyraStore.at(lyra_home)


def add_corrections(store: LyraStore, pairs, *, start: datetime | None = None, wrong: set[int] = frozenset()):
    """``nli_corrections`` rows as edge_correct writes them (one per pair, a second apart);
    indices in ``wrong`` get a wrong label (the next class round the cycle)."""
    start = start or datetime(2026, 11, 1, 9, 0, 0)
    cycle = ["entailment", "contradiction", "neutral"]

    def work(conn):
        for i, p in enumerate(pairs):
            label = cycle[(cycle.index(p.label) + 1) % 3] if i in wrong else p.label
            conn.execute(
                "INSERT INTO nli_corrections (id, edge_id, task_id, premise, hypothesis, predicted_label, "
                "predicted_confidence, correct_label, reason, corrected_at, sample_weight) "
                "VALUES (?, ?, 't_test', ?, ?, 'NEUTRAL', 0.5, ?, 'test', ?, 1.0)",
                [
                    uuid.uuid4().hex,
                    f"e_{i}",
                    p.premise,
                    p.hypothesis,
                    RELATION[label],
                    start + timedelta(seconds=i),
                ],
            )

    store.transaction(work)


def table(store: LyraStore, name: str):
    return store.fetch_df(f"SELECT * FROM {name} ORDER BY {', '.join(TABLES[name].column_names)}")


# -- the split and the gate ------------------------------------------------------------------------


def test_train_and_held_out_corrections_never_share_a_claim_or_a_pair():
    rng = random.Random(5)
    claims = [f"Claim number {i} about vitamin D and outcome {i % 17}." for i in range(400)]
    corrections = []
    for i in range(3000):
        claim = rng.choice(claims)
        spelled = claim.upper() if i % 7 == 0 else f"  {claim} "  # the same claim, spelled differently
        corrections.append(
            Correction(
                id=str(i),
                premise=f"fragment {rng.randrange(500)}",
                hypothesis=spelled,
                label=rng.choice(["entailment", "contradiction", "neutral"]),
            )
        )
    train, held = split_corrections(corrections, 0.3, seed=13)

    def key(c):
        return " ".join(c.hypothesis.lower().split())

    assert {key(c) for c in train}.isdisjoint({key(c) for c in held})
    assert {(c.premise, key(c)) for c in train}.isdisjoint({(c.premise, key(c)) for c in held})
    assert 0.22 < len({key(c) for c in held}) / len(claims) < 0.38
    # the side of a correction never depends on the others: a prefix splits the same way
    train_again, held_again = split_corrections(corrections[:1000], 0.3, seed=13)
    assert {c.id for c in held_again} == {c.id for c in held if int(c.id) < 1000}
    assert {c.id for c in train_again} == {c.id for c in train if int(c.id) < 1000}


def m(accuracy: float, f1: float | None = None) -> Metrics:
    return Metrics(pairs=100, accuracy=accuracy, macro_f1=accuracy if f1 is None else f1)


def test_gate_needs_a_gain_on_held_out_and_at_most_one_point_lost_on_snli():
    assert gate_decision(m(0.60), m(0.70), m(0.83), m(0.825), 0.01).activate
    lost = gate_decision(m(0.60), m(0.70), m(0.83), m(0.815), 0.01)
    assert not lost.activate and "1.5 points" in lost.reason
    same = gate_decision(m(0.60), m(0.60), m(0.83), m(0.84), 0.01)
    assert not same.activate and "not better" in same.reason
    assert gate_decision(
        m(0.60, 0.50), m(0.60, 0.55), m(0.83), m(0.83), 0.01
    ).activate  # macro-F1 breaks the tie


# -- the corrections sensor ------------------------------------------------------------------------


def test_corrections_sensor_keeps_a_cursor_and_never_overlaps_a_training(store):
    settings = LyraSettings(learning=LearningSettings(correction_threshold=5))
    pairs = read_pairs(GATE_DIR / "regression.jsonl", limit=30)
    with DagsterInstance.ephemeral() as instance:

        def tick(cursor=None):
            ctx = build_sensor_context(
                instance=instance, cursor=cursor, resources={"store": store, "settings": settings}
            )
            return adapter_assets.nli_corrections_sensor(ctx)

        add_corrections(store, pairs[:4])
        skipped = tick()
        assert (
            isinstance(skipped, SkipReason)
            and "4 new correction(s) waiting; training starts at 5" in skipped.skip_message
        )

        add_corrections(store, pairs[4:6], start=datetime(2026, 11, 2))
        result = tick()
        [request] = result.run_requests
        cutoff = request.run_config["ops"]["nli_adapter"]["config"]["cutoff"]
        assert cutoff == (datetime(2026, 11, 2) + timedelta(seconds=1)).isoformat() == result.cursor

        # the same corrections never trigger twice: past the cursor nothing waits
        again = tick(result.cursor)
        assert isinstance(again, SkipReason) and again.skip_message.startswith("0 new")
        add_corrections(store, pairs[6:14], start=datetime(2026, 11, 3))
        later = tick(result.cursor)
        assert later.run_requests[0].run_key != request.run_key

        # a training in progress: no second one, whatever waits
        create_run_for_test(instance, job_name=ADAPTER_JOB, status=DagsterRunStatus.STARTED)
        busy = tick(result.cursor)
        assert isinstance(busy, SkipReason) and "in progress" in busy.skip_message


def test_a_correction_naming_a_part_of_the_direction_judge_does_not_train_the_nli_adapter(store):
    from lyra_assets.models.adapter import waiting_corrections
    from lyra_training.adapters import load_corrections

    pairs = read_pairs(GATE_DIR / "regression.jsonl", limit=3)
    add_corrections(store, pairs)
    store.transaction(
        lambda conn: conn.execute(
            "UPDATE nli_corrections SET wrong_part = 'passage_direction', direction_label = 'decreased' "
            "WHERE edge_id = 'e_1'"
        )
    )
    assert [c.premise for c in load_corrections(store)] == [pairs[0].premise, pairs[2].premise]
    assert waiting_corrections(store, None)[0] == 2


def test_edge_corrections_through_feedback_reach_the_sensor(store):
    settings = LyraSettings(learning=LearningSettings(correction_threshold=2))
    graph = write_graph(store)
    with DagsterInstance.ephemeral() as instance:

        def tick():
            return adapter_assets.nli_corrections_sensor(
                build_sensor_context(instance=instance, resources={"store": store, "settings": settings})
            )

        apply_feedback(
            store,
            graph.task_id,
            "edge_correct",
            {"edge_id": graph.edges[("falls", "meta")], "correct_relation": "supports"},
        )
        apply_feedback(
            store,
            graph.task_id,
            "edge_correct",  # agrees with the model: no sample
            {"edge_id": graph.edges[("falls", "whi")], "correct_relation": "neutral"},
        )
        assert isinstance(tick(), SkipReason)
        apply_feedback(
            store,
            graph.task_id,
            "edge_correct",
            {"edge_id": graph.edges[("hip", "whi")], "correct_relation": "supports"},
        )
        assert len(tick().run_requests) == 1


# -- training, the gate on real models, and what a failure leaves -----------------------------------

TINY = dict(epochs=1, batch_size=8, replay_min=8, replay_per_correction=0.5, min_heldout=3)


@pytest.mark.slow  # ~20 s: a few LoRA steps and the gate's 2 × 1,000 SNLI pairs
def test_noisy_corrections_make_an_adapter_the_gate_refuses(store, lyra_home):
    """30 % of the training corrections carry a wrong label and training is pushed hard (a high
    learning rate): the adapter gets worse on the held-out corrections, whose labels are right,
    so the gate keeps it as ``rejected`` and the base model stays active."""
    pairs = read_pairs(GATE_DIR / "replay.jsonl", limit=60)
    cfg = LearningSettings(**{**TINY, "epochs": 3, "learning_rate": 0.02})
    train_side = [
        i for i, p in enumerate(pairs) if not is_held_out(p.hypothesis, cfg.holdout_fraction, cfg.split_seed)
    ]
    wrong = set(random.Random(3).sample(train_side, round(0.3 * len(train_side))))
    add_corrections(store, pairs, wrong=wrong)
    outcome = learn_from_corrections(store, lyra_home / "adapters", BASE, cfg, threads=2)
    assert outcome.gate.heldout_after.accuracy < outcome.gate.heldout_before.accuracy
    assert outcome.version.status == "rejected" and "not better" in outcome.version.decision
    assert nli_versions.active_version(store, BASE).version == base_version(BASE)
    applied = table(store, "nli_corrections")["applied_in_version"]
    assert set(applied) == {outcome.version.version}  # used, so they never trigger another training
    card = (Path(outcome.version.adapter_path) / "README.md").read_text()
    assert "rejected" in card and "held-out corrections" in card and "CC BY-SA 4.0" in card


def test_version_sensor_tags_each_rescoring_with_its_task_and_question(store):
    graph = write_graph(store)
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [graph.task_id])
        ctx = build_sensor_context(instance=instance, resources={"store": store, "models": HashModels()})
        [request] = adapter_assets.nli_version_sensor(ctx).run_requests
    question = store.require_task(graph.task_id).query
    assert request.partition_key == request.tags[TASK_TAG] == graph.task_id
    assert request.tags[QUESTION_TAG] == task_tags(graph.task_id, question)[QUESTION_TAG]


@pytest.mark.slow  # ~30 s: a few LoRA steps, the gate, and one task re-scored with the real NLI model
def test_an_activated_adapter_judges_the_edges_and_corrections_stay(store, lyra_home, monkeypatch):
    graph = write_graph(store)
    corrected_edge = graph.edges[("falls", "meta")]
    apply_feedback(
        store, graph.task_id, "edge_correct", {"edge_id": corrected_edge, "correct_relation": "supports"}
    )
    add_corrections(store, read_pairs(GATE_DIR / "regression.jsonl", limit=24))
    outcome = learn_from_corrections(
        store, lyra_home / "models" / "nli_adapters", BASE, LearningSettings(**TINY), threads=2
    )
    version = outcome.version
    adapter = Path(version.adapter_path)
    assert (
        adapter.parent == lyra_home / "models" / "nli_adapters" and (adapter / "adapter_config.json").exists()
    )
    assert version.heldout_corrections >= 3 and version.replay_pairs >= 8 and version.steps >= 1
    assert NliModel(BASE, adapter=adapter).version == version.version
    card = json.loads((adapter / "training.json").read_text())  # what it learned from vs what judged it
    trained, held = set(card["train_correction_ids"]), set(card["heldout_correction_ids"])
    assert trained and held and trained.isdisjoint(held)
    texts = table(store, "nli_corrections").set_index("id")["hypothesis"]
    assert set(texts[list(trained)]).isdisjoint(set(texts[list(held)]))

    # by hand, whatever the gate said (rolling forward); the version sensor asks for one re-scoring per task
    nli_versions.activate(store, version.version, BASE, reason="test")
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [graph.task_id])
        ctx = build_sensor_context(instance=instance, resources={"store": store, "models": HashModels()})
        result = adapter_assets.nli_version_sensor(ctx)
        assert [r.partition_key for r in result.run_requests] == [graph.task_id]
        assert result.cursor == version.version
        ctx = build_sensor_context(
            instance=instance, cursor=result.cursor, resources={"store": store, "models": HashModels()}
        )
        assert isinstance(adapter_assets.nli_version_sensor(ctx), SkipReason)

        job = build_definitions(lyra_home).resolve_job_def(RESCORING_JOB)
        resources = {**build_resources(lyra_home), "models": HashModels(embedder_name="test-hash")}
        run = job.execute_in_process(partition_key=graph.task_id, instance=instance, resources=resources)
        assert run.success
    edges = store.read_partition("nli_edges", graph.task_id)
    assert set(edges["model_version"]) == {version.version}
    assert nli_versions.affected_tasks(store, version.version) == []
    # the re-run judged the corrected pair again; the human label is in force over the new output
    assert corrected_edge in set(edges["edge_id"])
    [falls_meta] = [
        e
        for e in explore.claim_evidence(store, graph.claims["falls"], graph.task_id).evidence.supports
        if e.edge_id == corrected_edge
    ]
    assert falls_meta.human_corrected and falls_meta.nli_confidence == 1.0
    status = explore.task_status(store, graph.task_id, with_dagster=False)
    assert status.active_nli_version == status.edges_nli_version == version.version

    # and back: the base model again, by hand
    previous, now = nli_versions.activate(store, base_version(BASE), BASE, reason="rollback")
    assert previous.version == version.version and now.status == "active"
    statuses = dict(table(store, "nli_model_versions")[["version", "status"]].itertuples(index=False))
    assert statuses[version.version] == "retired" and list(statuses.values()).count("active") == 1


def test_an_interrupted_training_changes_nothing(store, lyra_home):
    add_corrections(store, read_pairs(GATE_DIR / "regression.jsonl", limit=24))
    nli_versions.ensure_base(store, BASE)
    before = {name: table(store, name) for name in ("nli_corrections", "nli_model_versions")}
    calls = iter(range(1000))
    with pytest.raises(TrainingInterrupted):
        learn_from_corrections(
            store,
            lyra_home / "adapters",
            BASE,
            LearningSettings(**TINY),
            threads=1,
            should_stop=lambda: next(calls) >= 2,
        )
    for name, frame in before.items():
        assert table(store, name).equals(frame), name
    assert list((lyra_home / "adapters").iterdir()) == []  # the staging folder is gone too


def test_too_few_held_out_corrections_is_a_clear_error(store, lyra_home):
    add_corrections(store, read_pairs(GATE_DIR / "regression.jsonl", limit=4))
    with pytest.raises(LearningError, match="the gate needs 5 held-out corrections"):
        learn_from_corrections(store, lyra_home / "adapters", BASE, LearningSettings(), threads=1)
    assert table(store, "nli_corrections")["applied_in_version"].isna().all()


def test_activating_an_unknown_version_names_the_known_ones(store):
    with pytest.raises(
        nli_versions.VersionError, match="no NLI model version 'lora-v9'.*lyra-verifier-minilm-l6@"
    ):
        nli_versions.activate(store, "lora-v9", BASE, reason="test")


# -- the command line ------------------------------------------------------------------------------


@pytest.mark.slow  # ~40 s: the nli_adapter_training job in-process, with a tiny training
def test_command_line_corrects_trains_lists_and_rolls_back(store, lyra_home, tmp_path, monkeypatch):
    import yaml
    from typer.testing import CliRunner

    from lyra_tools.cli import app

    path = tmp_path / "settings.yaml"
    path.write_text(yaml.safe_dump({"learning": {**TINY, "correction_threshold": 2}, "torch_threads": 2}))
    monkeypatch.setenv("LYRA_SETTINGS", str(path))
    cli = CliRunner()

    def run(*args):
        return cli.invoke(app, [*args, "--home", str(lyra_home)], catch_exceptions=False)

    graph = write_graph(store)
    corrected = run(
        "feedback",
        "edge-correct",
        graph.task_id,
        graph.edges[("falls", "meta")],
        "supports",
        "--reason",
        "the trial found fewer falls",
    )
    assert corrected.exit_code == 0 and '"changed": true' in corrected.output
    bad = run("feedback", "edge-correct", graph.task_id, graph.edges[("falls", "meta")], "maybe")
    assert bad.exit_code == 1 and "maybe" in bad.output
    add_corrections(store, read_pairs(GATE_DIR / "regression.jsonl", limit=24))

    trained = run("models", "train-adapter")
    assert trained.exit_code == 0, trained.output
    assert "nli_adapter_training succeeded" in trained.output
    listed = run("models", "list")
    assert "lora-v1" in listed.output and listed.output.count("active") == 1
    [row] = [v for v in nli_versions.list_versions(store, BASE) if v.is_adapter]
    assert row.corrections_used >= 1 and row.heldout_after is not None and row.regression_after is not None
    assert table(store, "nli_corrections")["applied_in_version"].eq(row.version).all()

    again = run("models", "train-adapter")  # nothing new since: refused, nothing written
    assert again.exit_code == 1 and "no correction waits" in again.output
    assert len(nli_versions.list_versions(store, BASE)) == 2

    forward = run("models", "activate", row.version, "--no-rescore")
    assert forward.exit_code == 0 and f"active NLI version: {row.version}" in forward.output
    back = run("models", "activate", base_version(BASE), "--no-rescore")
    assert back.exit_code == 0 and f"was {row.version}" in back.output
    unknown = run("models", "activate", "lora-v7")
    assert unknown.exit_code == 1 and "no NLI model version 'lora-v7'" in unknown.output


def test_an_adapter_of_another_base_model_never_judges(store, lyra_home, tmp_path):
    """Settings pointing at another base model: the adapter activated for the shipped one does not
    load onto it; the configured base judges."""
    import shutil

    adapter = lyra_home / "adapters" / "lora-v1"
    adapter.mkdir(parents=True)
    (adapter / "adapter_config.json").write_text("{}")
    nli_versions.ensure_base(store, BASE)
    version = f"{base_version(BASE)}+lora-v1"
    store.transaction(
        lambda conn: conn.execute(
            "INSERT INTO nli_model_versions (version, parent, base_model, adapter_path, created_at, status, decision) "
            "VALUES (?, ?, ?, ?, now(), 'retired', 'test')",
            [version, base_version(BASE), BASE, str(adapter)],
        )
    )
    nli_versions.activate(store, version, BASE, reason="test")
    assert nli_versions.active_version(store, BASE).version == version
    other = tmp_path / "other-nli"
    shutil.copytree(DEFAULT_NLI_DIR, other, ignore=shutil.ignore_patterns("gate"))
    active = nli_versions.active_version(store, other)
    assert active.version == base_version(other) and active.adapter_path is None
