"""Dagster run handling: the names of Lyra's jobs and run tags, the Dagster instance of a Lyra home,
a task's runs and those still in progress, and what went wrong in a failed run.

Everything that starts, watches or judges a run uses these: the schedule and the sensors, the
store resource of a task run, and the CLI and MCP server (``lyra_tools``), which run a task's
job in their own process on the same instance that ``dagster dev`` shows.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

from dagster import DagsterEventType, DagsterInstance, DagsterRunStatus, RunRecord, RunsFilter

from lyra_assets.partitions import TASKS_PARTITION
from lyra_assets.shipped_models import record_shipped_models
from lyra_resources.settings import HomeLayout, resolve_home

if TYPE_CHECKING:
    from dagster._utils.error import SerializableErrorInfo

# -- jobs -------------------------------------------------------------------------------------------

TASK_JOB = "task_pipeline"
NLI_TRAINING_JOB = "nli_model_training"
VERIFIER_TRAINING_JOB = "verifier_training"
RERANKER_TRAINING_JOB = "reranker_training"
ADAPTER_JOB = "nli_adapter_training"
RESCORING_JOB = "nli_rescoring"

# -- run tags ---------------------------------------------------------------------------------------

# Every run of a task carries TASK_TAG and QUESTION_TAG (the CLI's, the MCP server's, the schedule's and
# the re-scoring sensor's); runs the ``watched_tasks_schedule`` requests also carry TRIGGER_TAG =
# WATCH_TRIGGER and WATCH_TAG.
TASK_TAG = "lyra/task_id"
QUESTION_TAG = "lyra/question"
TRIGGER_TAG = "lyra/trigger"
WATCH_TRIGGER = "watch"
WATCH_TAG = "lyra/watch_every"
NLI_VERSION_TAG = "lyra/nli_version"  # the NLI version a re-scoring run judges with
PID_TAG = "lyra/pid"  # the process running the job in-process (the CLI's runs)
STOP_TAG = "lyra/stop_requested"  # set by `lyra task stop` before it interrupts a run
PARTITION_TAG = "dagster/partition"  # Dagster's own tag on every run of one partition
# The longest tag value Dagster accepts where it checks tag values (dagster._utils.tags); longer
# questions are cut so the run list shows a short label, not a paragraph.
TAG_VALUE_LIMIT = 63

ACTIVE_STATUSES = frozenset({
    DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING,
    DagsterRunStatus.STARTED, DagsterRunStatus.CANCELING,
})


def task_tags(task_id: str, question: str | None) -> dict[str, str]:
    """The run tags that say which task a run belongs to: its id and, when known, its question
    (whitespace collapsed, cut to Dagster's tag value limit with an ellipsis)."""
    tags = {TASK_TAG: task_id}
    text = " ".join((question or "").split())
    if len(text) > TAG_VALUE_LIMIT:
        text = text[:TAG_VALUE_LIMIT - 1].rstrip() + "…"
    if text:
        tags[QUESTION_TAG] = text
    return tags


# -- the instance -----------------------------------------------------------------------------------

_DAGSTER_YAML = """\
# Dagster instance of one Lyra home; `lyra ui` points dagster dev here.
telemetry:
  enabled: false
nux:
  enabled: false
"""


def prepare_instance_dir(layout: HomeLayout) -> None:
    """The home's Dagster directory, with its ``dagster.yaml`` written on first use."""
    layout.dagster_home.mkdir(parents=True, exist_ok=True)
    config = layout.dagster_home / "dagster.yaml"
    if not config.exists():
        config.write_text(_DAGSTER_YAML)


@contextlib.contextmanager
def open_instance(home: str | os.PathLike[str] | None = None) -> Iterator[DagsterInstance]:
    """The persistent Dagster instance under the Lyra home (`<home>/dagster`), disposed on exit.

    Not entered as a context manager: Dagster 1.13's `DagsterInstance.__exit__` disposes the
    instance but leaves it set as the process's current definitions-state storage, so definitions
    built after it closed would resolve a dead instance. Lyra's definitions keep no such state."""
    layout = HomeLayout(root=resolve_home(home))
    prepare_instance_dir(layout)
    instance = DagsterInstance.from_config(str(layout.dagster_home))
    try:
        record_shipped_models(instance)  # a fresh home shows the shipped NLI models as materialized
        yield instance
    finally:
        instance.dispose()


def register_partition(instance: DagsterInstance, task_id: str) -> None:
    """Add the task's partition, so its runs (and the schedule's requests) can name it."""
    if not instance.has_dynamic_partition(TASKS_PARTITION, task_id):
        instance.add_dynamic_partitions(TASKS_PARTITION, [task_id])


# -- a task's runs ----------------------------------------------------------------------------------

def task_runs(instance: DagsterInstance, task_id: str, limit: int = 20) -> list[RunRecord]:
    """The runs tagged with the task, newest first."""
    return list(instance.get_run_records(filters=RunsFilter(tags={TASK_TAG: task_id}), limit=limit))


def active_runs(instance: DagsterInstance, task_id: str) -> list[RunRecord]:
    """Runs of the task still in progress; a run whose process died is marked failed, not counted."""
    active = []
    for record in task_runs(instance, task_id, limit=50):
        run = record.dagster_run
        if run.status not in ACTIVE_STATUSES:
            continue
        pid = run.tags.get(PID_TAG)
        if pid and not process_alive(int(pid)):
            instance.report_run_failed(run, message=killed_message(run.run_id, pid))
            continue
        active.append(record)
    return active


def killed_message(run_id: str, pid: str | int) -> str:
    return f"run {run_id} was killed (process {pid} gone)"


def process_alive(pid: int) -> bool:
    """Whether ``pid`` is a live Python process (a reused pid of another program does not count)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    cmdline = f"/proc/{pid}/cmdline"
    if os.path.exists(cmdline):
        with open(cmdline, "rb") as fh:
            command = fh.read()
        return b"python" in command or b"lyra" in command
    return True


# -- what went wrong ------------------------------------------------------------------------------

def innermost_message(error: SerializableErrorInfo | None) -> str | None:
    """The innermost error's message: what actually went wrong inside the asset."""
    while error is not None and error.cause is not None:
        error = error.cause
    return error.message.strip() if error is not None else None


class StepFailure(NamedTuple):
    step: str
    message: str


def failed_step(instance: DagsterInstance, run_id: str) -> StepFailure | None:
    """The run's first failed step and its innermost error's message; ``None`` when no step failed."""
    for entry in instance.all_logs(run_id, of_type=DagsterEventType.STEP_FAILURE):
        event = entry.dagster_event
        message = innermost_message(event.event_specific_data.error) if event is not None else None
        if message is not None:
            return StepFailure(step=event.step_key or "", message=message)
    return None
