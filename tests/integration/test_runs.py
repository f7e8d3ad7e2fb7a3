"""Dagster run handling in ``lyra_assets.execution.runs``: the run tags that say which task a run is about,
what a failed run reports, and the Dagster layer importing without the CLI above it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from fixtures.paths import REPO as ROOT
from lyra_assets.execution.runs import (
    QUESTION_TAG,
    RESCORING_JOB,
    TAG_VALUE_LIMIT,
    TASK_TAG,
    failed_step,
    open_instance,
    task_runs,
    task_tags,
)
from lyra_assets.partitions import task_partitions
from lyra_resources.store.lyra_store import LyraStore


def test_task_tags_name_the_task_and_its_question():
    assert task_tags("task_1", "Does vitamin D reduce fracture risk?") == {
        TASK_TAG: "task_1",
        QUESTION_TAG: "Does vitamin D reduce fracture risk?",
    }


def test_question_tag_collapses_whitespace():
    tags = task_tags("task_1", "  Does vitamin D\n reduce\tfracture   risk?  ")
    assert tags[QUESTION_TAG] == "Does vitamin D reduce fracture risk?"


def test_long_question_is_cut_to_the_tag_value_limit_with_an_ellipsis():
    question = "Does high-dose vitamin D supplementation reduce the risk of hip fractures in older adults?"
    value = task_tags("task_1", question)[QUESTION_TAG]
    assert len(question) > TAG_VALUE_LIMIT and len(value) <= TAG_VALUE_LIMIT
    assert value.endswith("…") and question.startswith(value[:-1])
    exact = "x" * TAG_VALUE_LIMIT
    assert task_tags("task_1", exact)[QUESTION_TAG] == exact  # at the limit: kept whole


def test_a_cut_never_ends_in_a_space_before_the_ellipsis():
    question = "a" * (TAG_VALUE_LIMIT - 2) + " " + "b" * 20
    assert task_tags("task_1", question)[QUESTION_TAG] == "a" * (TAG_VALUE_LIMIT - 2) + "…"


def test_without_a_question_only_the_task_is_tagged():
    assert task_tags("task_1", None) == {TASK_TAG: "task_1"}
    assert task_tags("task_1", " \n ") == {TASK_TAG: "task_1"}


def test_every_dagster_module_imports_without_the_cli(tmp_path):
    """``lyra_assets`` sits below ``lyra_tools``: importing every one of its modules (the definitions,
    the schedules and sensors, the ``defs`` dagster dev loads) never imports the CLI or MCP server."""
    script = (
        "import importlib, pkgutil, sys\n"
        "import lyra_assets, lyra_assets.definitions\n"
        "for info in pkgutil.iter_modules(lyra_assets.__path__):\n"
        "    importlib.import_module(f'lyra_assets.{info.name}')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'lyra_tools'))\n"
    )
    env = {**os.environ, "LYRA_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def _stub_job(monkeypatch, fail: bool) -> None:
    """``run_job`` against definitions holding one tiny partitioned job under the re-scoring job's name."""
    from dagster import Definitions, asset, define_asset_job

    from lyra_assets.execution import run_control

    @asset(partitions_def=task_partitions)
    def probe() -> None:
        if fail:
            raise ValueError("the edges table is gone")

    defs = Definitions(assets=[probe], jobs=[define_asset_job(RESCORING_JOB, selection=[probe])])
    monkeypatch.setattr(run_control, "build_definitions", lambda home, settings=None: defs)


def test_a_job_run_on_a_task_partition_carries_the_task_and_its_question(lyra_home, monkeypatch):
    from lyra_assets.execution import run_control

    _stub_job(monkeypatch, fail=False)
    task = LyraStore.at(lyra_home).create_task("Does vitamin D\n  reduce fracture risk?", {})
    outcome = run_control.run_job(RESCORING_JOB, {}, lyra_home, partition_key=task.id)
    assert outcome.success and outcome.error is None
    with open_instance(lyra_home) as instance:
        [record] = task_runs(instance, task.id)
    assert record.dagster_run.run_id == outcome.run_id
    assert record.dagster_run.tags[QUESTION_TAG] == "Does vitamin D reduce fracture risk?"


def test_a_failed_job_reports_the_innermost_error_of_its_step(lyra_home, monkeypatch):
    from lyra_assets.execution import run_control

    _stub_job(monkeypatch, fail=True)
    task = LyraStore.at(lyra_home).create_task("Does vitamin D reduce fracture risk?", {})
    outcome = run_control.run_job(RESCORING_JOB, {}, lyra_home, partition_key=task.id)
    assert not outcome.success and outcome.error == "ValueError: the edges table is gone"
    with open_instance(lyra_home) as instance:
        assert failed_step(instance, outcome.run_id) == ("probe", "ValueError: the edges table is gone")


def test_a_new_home_opened_from_several_threads_at_once_opens_for_all(tmp_path):
    """Dagster's SQLite storages stamp their schema on first use; two first opens at once used to
    collide ("UNIQUE constraint failed: alembic_version.version_num")."""
    errors: list[str] = []

    def open_and_read(home: Path) -> None:
        try:
            with open_instance(home) as instance:
                instance.get_run_records(limit=1)
        except Exception as exc:  # noqa: BLE001 (every failure is the finding)
            errors.append(repr(exc))

    for trial in range(3):
        home = tmp_path / f"home{trial}"
        threads = [threading.Thread(target=open_and_read, args=(home,)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
