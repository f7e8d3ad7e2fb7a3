"""``lyra worker``: one Celery worker of the cluster profile, executing task runs' steps.

The worker is dagster-celery's (``celery -A dagster_celery.app worker``) with Lyra's broker and
home: it takes steps from the Redis broker, rebuilds the job from Lyra's code and writes to the
Dagster instance and the store in Postgres, and to the caches and Parquet exports of the home. Every
worker and every process that starts runs must therefore share the code, the settings and the home
(a shared path).
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from lyra_resources.environment import PROFILE_ENV, child_environment, python_path
from lyra_resources.home import REPO_ROOT, HomeLayout
from lyra_tools.cli.common import HomeOption, command_settings, fail, home_root

app = typer.Typer()


@app.command()
def worker(
    concurrency: Annotated[
        int,
        typer.Option(
            min=1,
            help="steps this worker runs at once (each in its own "
            "process; steps load models, so mind the memory)",
        ),
    ] = 1,
    home: HomeOption = None,
) -> None:
    """Run task steps of the cluster profile from its Redis broker (a Dagster Celery worker)."""
    from lyra_assets.execution.runs import open_instance
    from lyra_assets.execution.step_workers import (
        CELERY_APP,
        CELERY_QUEUE,
        cluster_broker,
        write_worker_config,
    )

    settings = command_settings()
    redis_url = cluster_broker(settings.cluster)
    if redis_url is None:
        raise fail(
            f"lyra worker serves the cluster profile: set cluster.profile: cluster in the settings file "
            f"or ${PROFILE_ENV}=cluster, and the Redis broker (cluster.redis_url or $LYRA_REDIS_URL)"
        )
    try:
        import dagster_celery  # noqa: F401 (the cluster extra)
    except ImportError:
        raise fail("lyra worker needs Lyra's cluster extra: pip install 'lyra[cluster]'") from None
    layout = HomeLayout(root=home_root(home))
    with open_instance(
        layout.root, settings.cluster.effective()
    ):  # the home's instance prepared before steps write to it
        pass
    config_dir = write_worker_config(layout, redis_url)
    # the worker's own config module first; the repository root so workers import this code
    env = child_environment(
        DAGSTER_HOME=str(layout.dagster_home),
        LYRA_HOME=str(layout.root),
        PYTHONPATH=python_path(str(config_dir), str(REPO_ROOT)),
    )
    # execvpe keeps the pid: the worker's name says which process it is
    name = f"lyra-{os.getpid()}@%h"
    args = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        CELERY_APP,
        "worker",
        "-Q",
        CELERY_QUEUE,
        "-n",
        name,
        "--concurrency",
        str(concurrency),
        "--prefetch-multiplier",
        "1",
        "--loglevel",
        "INFO",
    ]
    os.chdir(REPO_ROOT)
    os.execvpe(sys.executable, args, env)
