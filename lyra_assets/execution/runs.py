"""Dagster run handling: the names of Lyra's jobs and run tags, the Dagster instance of a Lyra home,
a task's runs and those still in progress, and what went wrong in a failed run.

Everything that starts, watches or judges a run uses these: the schedule and the sensors, the
store resource of a task run, and the CLI and MCP server (``lyra_tools``), which run a task's
job in their own process on the same instance that ``dagster dev`` shows.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

import yaml
from dagster import DagsterEventType, DagsterInstance, DagsterRun, DagsterRunStatus, RunRecord, RunsFilter

from lyra_assets.partitions import TASKS_PARTITION
from lyra_assets.shipped_models import record_shipped_models
from lyra_resources.files import replace_text
from lyra_resources.home import HomeLayout, resolve_home
from lyra_resources.settings.loading import effective_cluster_settings
from lyra_resources.settings.pipeline import SettingsError
from lyra_resources.settings.services import ClusterSettings

if TYPE_CHECKING:
    # `dagster` exports no name for it; dagster-shared (a dependency of dagster) defines it publicly
    from dagster_shared.error import SerializableErrorInfo

# -- jobs -------------------------------------------------------------------------------------------

TASK_JOB = "task_pipeline"
NLI_TRAINING_JOB = "nli_model_training"
VERIFIER_TRAINING_JOB = "verifier_training"
DIRECTION_TRAINING_JOB = "direction_reader_training"
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
STORE_TAG = "lyra/store"  # where the submitting process's store is: a step process must write there too
PARTITION_TAG = "dagster/partition"  # Dagster's own tag on every run of one partition
# The longest tag value Dagster accepts where it checks tag values (dagster._utils.tags); longer
# questions are cut so the run list shows a short label, not a paragraph.
TAG_VALUE_LIMIT = 63

ACTIVE_STATUSES = frozenset(
    {
        DagsterRunStatus.QUEUED,
        DagsterRunStatus.NOT_STARTED,
        DagsterRunStatus.STARTING,
        DagsterRunStatus.STARTED,
        DagsterRunStatus.CANCELING,
    }
)


def task_tags(task_id: str, question: str | None) -> dict[str, str]:
    """The run tags that say which task a run belongs to: its id and, when known, its question
    (whitespace collapsed, cut to Dagster's tag value limit with an ellipsis)."""
    tags = {TASK_TAG: task_id}
    text = " ".join((question or "").split())
    if len(text) > TAG_VALUE_LIMIT:
        text = text[: TAG_VALUE_LIMIT - 1].rstrip() + "…"
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
# The first line of the cluster profile's file: it marks the file as Lyra's, so switching the home
# back to the local profile replaces it (a local file without it is the user's and is left alone).
_CLUSTER_HEADER = "# Written by Lyra from its settings (profile cluster); rewritten whenever they change.\n"


# Dagster's run monitoring in the daemon (`lyra daemon`): a run launched but not started, or asked to
# stop but still running, is failed after these bounds rather than left in progress; the DefaultRunLauncher
# cannot resume a run, so none is. A run whose own process dies is failed by the code server that
# started it (within a second); one whose step worker dies, by its executor
# (lyra_assets.execution.celery_steps).
RUN_MONITORING = {
    "enabled": True,
    "poll_interval_seconds": 30,
    "start_timeout_seconds": 300,
    "cancel_timeout_seconds": 180,
    "max_resume_run_attempts": 0,
}


def cluster_dagster_yaml(cluster: ClusterSettings) -> str:
    """The ``dagster.yaml`` of a cluster home: runs, event logs and schedules in Postgres, a run queue
    that starts at most ``max_concurrent_runs`` runs and never two of one task, runs launched as
    processes of the machine running the daemon (``lyra daemon``), and run monitoring on them."""
    if not cluster.postgres_url:
        raise SettingsError(
            "the cluster profile needs a Postgres URL: set cluster.postgres_url in the "
            "settings file or $LYRA_POSTGRES_URL (e.g. postgresql://lyra@db:5432/lyra)"
        )
    if importlib.util.find_spec("dagster_postgres") is None:
        raise SettingsError("the cluster profile needs dagster-postgres: pip install 'lyra[cluster]'")
    config = {
        "telemetry": {"enabled": False},
        "nux": {"enabled": False},
        "storage": {"postgres": {"postgres_url": sqlalchemy_postgres_url(cluster.postgres_url)}},
        "run_coordinator": {  # both classes by the names `dagster` exports
            "module": "dagster",
            "class": "QueuedRunCoordinator",
            "config": {
                "max_concurrent_runs": cluster.max_concurrent_runs,
                "tag_concurrency_limits": [
                    {"key": TASK_TAG, "value": {"applyLimitPerUniqueValue": True}, "limit": 1},
                ],
            },
        },
        "run_launcher": {"module": "dagster", "class": "DefaultRunLauncher"},
        "run_monitoring": RUN_MONITORING,
    }
    return (
        _CLUSTER_HEADER + "# Edit Lyra's settings (cluster:), not this file; without the line above it is "
        "yours and left alone.\n# It holds the Postgres URL: keep it private.\n"
        + yaml.safe_dump(config, sort_keys=False)
    )


def sqlalchemy_postgres_url(url: str) -> str:
    """The URL with psycopg2 named as its driver when it names none: dagster-postgres installs
    psycopg2, while SQLAlchemy 2.1 takes a bare ``postgresql://`` for psycopg 3."""
    scheme, sep, rest = url.partition("://")
    return f"postgresql+psycopg2://{rest}" if sep and scheme in ("postgresql", "postgres") else url


def prepare_instance_dir(layout: HomeLayout, cluster: ClusterSettings | None = None) -> None:
    """The home's Dagster directory with the ``dagster.yaml`` of the settings' profile (default: local).

    Lyra writes the file when there is none and rewrites its own (the local text, or a cluster file
    with its header) when the profile or the cluster settings change; a file without Lyra's header
    is the user's (another run launcher, say) and is left alone. The cluster's file is readable by
    its owner only: it holds the Postgres URL. Runs recorded under one profile are not seen under
    the other: they live in another storage."""
    layout.dagster_home.mkdir(parents=True, exist_ok=True)
    config = layout.dagster_home / "dagster.yaml"
    current = config.read_text(encoding="utf-8") if config.exists() else None
    if cluster is not None and cluster.profile == "cluster":
        wanted = cluster_dagster_yaml(cluster)
        if current != wanted and (current in (None, _DAGSTER_YAML) or current.startswith(_CLUSTER_HEADER)):
            replace_text(config, wanted, mode=0o600)  # it holds the Postgres URL
    elif current is None or current.startswith(_CLUSTER_HEADER):
        replace_text(config, _DAGSTER_YAML)


def cluster_settings() -> ClusterSettings:
    """The cluster section of the user's settings, with the environment applied (``$LYRA_PROFILE`` …)."""
    return effective_cluster_settings()


def is_cluster(cluster: ClusterSettings | None = None) -> bool:
    """Whether runs go to the cluster's queue rather than executing in the process that starts them."""
    return (cluster or cluster_settings()).profile == "cluster"


def prepared_instance(
    home: str | os.PathLike[str] | None = None, cluster: ClusterSettings | None = None
) -> DagsterInstance:
    """The Dagster instance of the Lyra home, ready to use; the caller disposes it. In files under
    `<home>/dagster` (profile local) or in the cluster's Postgres (profile cluster); ``cluster``
    defaults to the user's settings. A fresh home shows the shipped NLI models as materialized.

    Not to be entered as a context manager: Dagster 1.13's `DagsterInstance.__exit__` disposes the
    instance but leaves it set as the process's current definitions-state storage, so definitions
    built after it closed would resolve a dead instance. Lyra's definitions keep no such state."""
    layout = HomeLayout(root=resolve_home(home))
    with _first_open_lock(layout):  # two first opens of a new home would both create its storage
        prepare_instance_dir(layout, cluster or cluster_settings())
        instance = DagsterInstance.from_config(str(layout.dagster_home))
        try:
            instance.get_run_records(limit=1)  # the run, event and schedule storages are ready past here
            record_shipped_models(instance)
        except BaseException:
            instance.dispose()
            raise
    return instance


@contextlib.contextmanager
def open_instance(
    home: str | os.PathLike[str] | None = None, cluster: ClusterSettings | None = None
) -> Iterator[DagsterInstance]:
    """`prepared_instance`, disposed on exit."""
    instance = prepared_instance(home, cluster)
    try:
        yield instance
    finally:
        instance.dispose()


@contextlib.contextmanager
def _first_open_lock(layout: HomeLayout) -> Iterator[None]:
    """An exclusive lock on `<home>/dagster/.open.lock` while the instance is prepared: processes (and
    threads: each takes its own file handle) opening a brand-new home one after another, not at once,
    since Dagster's SQLite storages stamp their schema on first use and two stampers collide."""
    layout.dagster_home.mkdir(parents=True, exist_ok=True)
    with open(layout.dagster_home / ".open.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


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
    return [
        record
        for record in task_runs(instance, task_id, limit=50)
        if record.dagster_run.status in ACTIVE_STATUSES and not _failed_if_dead(instance, record.dagster_run)
    ]


def fail_dead_runs(instance: DagsterInstance) -> list[str]:
    """Mark failed every run in progress whose process (``PID_TAG``: the CLI's and MCP's in-process
    runs, on this machine) is gone; returns their ids. A process killed with ``kill -9`` reports
    nothing itself, and Dagster's run monitoring watches only the runs its launcher started."""
    records = instance.get_run_records(RunsFilter(statuses=list(ACTIVE_STATUSES)), limit=500)
    return [r.dagster_run.run_id for r in records if _failed_if_dead(instance, r.dagster_run)]


def _failed_if_dead(instance: DagsterInstance, run: DagsterRun) -> bool:
    pid = run.tags.get(PID_TAG)
    if not pid or process_alive(int(pid)):
        return False
    instance.report_run_failed(run, message=killed_message(run.run_id, pid))
    return True


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
