"""Where the steps of a task run execute: in the run's own process (profile `local`), or spread
over Celery worker processes through the cluster's Redis broker (profile `cluster`).

In the cluster profile the jobs that run a task (`task_pipeline`, `nli_rescoring`) get
dagster-celery's executor: the run's process submits each step as a Celery task and the step runs
on whichever `lyra worker` takes it; the run fails, within a minute, when the worker executing one
of its steps dies (`lyra_assets.execution.celery_steps`). A worker rebuilds the job from Lyra's code
(`lyra_assets.repository`) and reaches the run's Dagster instance by the reference the run sends,
so every worker needs the same code, the same settings and the same Lyra home (on a shared path:
the instance, the DuckDB file, the caches). The broker URL reaches the executor through
`celery_config` and the workers through the module `write_worker_config` writes, so both sides
always agree on it.

dagster-celery is the `cluster` extra; the local profile never imports it.
"""

from __future__ import annotations

from pathlib import Path

from dagster import ExecutorDefinition

from lyra_resources.environment import PROFILE_ENV
from lyra_resources.home import HomeLayout
from lyra_resources.settings.pipeline import SettingsError
from lyra_resources.settings.services import ClusterSettings

CELERY_APP = "dagster_celery.app"
"""The Celery app every worker serves: dagster-celery's, which registers the step task."""
CELERY_QUEUE = "dagster"
"""The queue dagster-celery routes steps to (no step of Lyra's names another)."""
WORKER_CONFIG_MODULE = "dagster_celery_config"
"""The module dagster-celery's app reads its broker and settings from, when importable."""


def cluster_broker(cluster: ClusterSettings) -> str | None:
    """The Redis URL steps go through: ``None`` in the local profile, refused with one line in a
    cluster profile that names none."""
    cluster = cluster.effective()
    if cluster.profile != "cluster":
        return None
    if not cluster.redis_url:
        raise SettingsError(
            f"the cluster profile needs a Redis broker for its workers: set cluster.redis_url "
            f"in the settings file or $LYRA_REDIS_URL (or ${PROFILE_ENV}=local)"
        )
    return cluster.redis_url


def celery_config(redis_url: str) -> dict[str, object]:
    """dagster-celery's executor config for Lyra's broker: steps and their results both go through Redis."""
    return {
        "broker": redis_url,
        "backend": redis_url,
        "config_source": {
            # one step at a time per worker process: steps load models and are long, not many and short
            "worker_prefetch_multiplier": 1,
            # a worker takes a step only when it can start it, so a killed worker holds no waiting steps
            "worker_disable_prefetch": True,
            # a started step's result names its worker, which the run watches (celery_steps)
            "task_track_started": True,
            # acknowledged when started: a killed worker's step fails the run, it is never run twice
            "task_acks_late": False,
        },
    }


def step_executor(cluster: ClusterSettings) -> ExecutorDefinition | None:
    """The executor of the task jobs: dagster-celery's on the cluster's broker, watching its
    workers, in the cluster profile, ``None`` (the job's default, unchanged) in the local profile."""
    redis_url = cluster_broker(cluster)
    if redis_url is None:
        return None
    try:
        from lyra_assets.execution.celery_steps import watched_celery_executor
    except ImportError:
        raise SettingsError(
            "the cluster profile runs steps on Celery workers: install Lyra's cluster extra "
            "(pip install 'lyra[cluster]')"
        ) from None
    return watched_celery_executor.configured(celery_config(redis_url))


def write_worker_config(layout: HomeLayout, redis_url: str) -> Path:
    """Write the config module a worker's Celery app reads (``<home>/dagster/celery/``) and return
    its folder, which goes first on the worker's ``PYTHONPATH``."""
    folder = layout.dagster_home / "celery"
    folder.mkdir(parents=True, exist_ok=True)
    config = celery_config(redis_url)
    lines = [
        "# Written by `lyra worker` from Lyra's settings; rewritten at each start.",
        f"broker_url = {config['broker']!r}",
        f"result_backend = {config['backend']!r}",
        *(f"{key} = {value!r}" for key, value in config["config_source"].items()),
    ]  # type: ignore[union-attr]
    (folder / f"{WORKER_CONFIG_MODULE}.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder
