"""The Dagster `Definitions` of Lyra, built for one Lyra home (by the CLI, and by `lyra_assets.repository`
for `dagster dev` and the cluster's workers)."""

from __future__ import annotations

import os

from dagster import AssetSelection, Definitions, ExecutorDefinition, define_asset_job

from lyra_assets import documents, ranking, sources, table_io, task_assets, web
from lyra_assets.citations import edges as citation_edges
from lyra_assets.citations import tracking as citation_tracking
from lyra_assets.evidence import answer, checks, claims, judging, topics, verification
from lyra_assets.execution import run_queue, schedules, task_status
from lyra_assets.execution.interrupts import console_without_interruptions
from lyra_assets.execution.runs import (
    DIRECTION_TRAINING_JOB,
    NLI_TRAINING_JOB,
    RERANKER_TRAINING_JOB,
    TASK_JOB,
    VERIFIER_TRAINING_JOB,
)
from lyra_assets.execution.step_workers import step_executor
from lyra_assets.graph import publish, report
from lyra_assets.metadata import with_table_metadata
from lyra_assets.models import adapter, training
from lyra_resources.dagster_resources import settings_resource
from lyra_resources.home import HomeLayout, resolve_home
from lyra_resources.models.llm import OllamaLlm
from lyra_resources.models.local_models import LocalModels
from lyra_resources.settings.loading import LyraSettings, load_settings
from lyra_resources.sources.literature import LiteratureSources
from lyra_resources.web.browser_resource import WebBrowser
from lyra_resources.web.domain_policy import DomainTrust

_TABLE_ASSETS = [  # in the order they run
    web.serp_results,
    sources.paper_search,
    citation_tracking.citation_tracking,
    web.web_fetch,
    documents.pages,
    documents.fragments,
    citation_edges.citation_edges,
    ranking.fragment_ranking,
    claims.claims,
    judging.nli_edges,
    judging.claim_scores,
    topics.claim_topics,
    answer.task_answer,
    verification.domain_verification,
]
ASSETS = [*_TABLE_ASSETS, publish.publishing_asset(_TABLE_ASSETS), report.task_report]
TASK_RUN_ASSETS = [task_assets.TASK, *ASSETS]  # and the task they read: what `materialize` needs to run them
CHECKS = [checks.nli_edges_are_well_formed, checks.claim_scores_are_consistent]
MODEL_ASSETS = [
    training.nli_model,
    training.verifier_model,
    training.direction_reader,
    training.corpus_reranker,
    adapter.nli_adapter,
]


# Returns an unresolved asset job, a type `dagster` exports no name for (hence no annotation).
def pipeline_job(executor: ExecutorDefinition | None = None):
    """The `task_pipeline` job, its steps on ``executor`` (``None``: the job's default, in the
    run's process)."""
    return define_asset_job(
        TASK_JOB,
        selection=AssetSelection.assets(*ASSETS) | AssetSelection.checks(*CHECKS),
        description="Materialize every per-task asset of one research task.",
        executor_def=executor,
    )


task_pipeline = pipeline_job()
nli_model_training = define_asset_job(
    NLI_TRAINING_JOB, selection=[training.nli_model], description="Train the SNLI base cross-encoder."
)
direction_reader_training = define_asset_job(
    DIRECTION_TRAINING_JOB,
    selection=[training.direction_reader],
    description="Train the direction reader on Evidence Inference v2.",
)
verifier_training = define_asset_job(
    VERIFIER_TRAINING_JOB,
    selection=[training.verifier_model],
    description="Train, cross-validate and calibrate Lyra's claim verifier.",
)
reranker_training = define_asset_job(
    RERANKER_TRAINING_JOB,
    selection=[training.corpus_reranker],
    description="Adapt a cross-encoder reranker to one corpus.",
)


def task_jobs(executor: ExecutorDefinition | None) -> list:  # of unresolved asset jobs (see `pipeline_job`)
    """The jobs that run a task (`task_pipeline`, `nli_rescoring`), their steps on ``executor``
    (``None``: as defined, the local profile's)."""
    return [pipeline_job(executor), adapter.rescoring_job(executor)]


def build_resources(
    home: str | os.PathLike[str] | None = None, settings: LyraSettings | None = None
) -> dict[str, object]:
    """Every resource rooted at one Lyra home and configured by ``settings`` (default: the user's
    settings file, read now)."""
    layout = HomeLayout(root=resolve_home(home, create=False))
    config = settings or load_settings()
    return {
        "settings": settings_resource(config),
        "store": publish.TaskStore(home=str(layout.root), store_url=config.cluster.effective().store_url()),
        table_io.LYRA_TABLES: table_io.lyra_tables,  # every per-task table the assets take and return, through "store"
        "literature": LiteratureSources.configured(layout.cache, config),
        "models": LocalModels.configured(layout.root, config),
        "trust": DomainTrust(),
        "llm": OllamaLlm(
            provider=config.llm.provider,
            base_url=config.llm.ollama_url,
            model=config.llm.model,
            timeout_s=config.llm.timeout_s,
        ),
        "browser": WebBrowser.from_settings(config.browser),
    }


def build_definitions(
    home: str | os.PathLike[str] | None = None, settings: LyraSettings | None = None
) -> Definitions:
    """Lyra's definitions with every resource rooted at one Lyra home and configured by ``settings``
    (default: the user's settings file). In the cluster profile the task jobs' steps run on the
    cluster's Celery workers (:mod:`lyra_assets.execution.step_workers`)."""
    layout = HomeLayout(root=resolve_home(home, create=False))
    config = settings or load_settings()
    pipeline, rescoring = task_jobs(step_executor(config.cluster))
    return Definitions(
        assets=[task_assets.TASK, *with_table_metadata([*ASSETS, *MODEL_ASSETS], layout)],
        asset_checks=CHECKS,
        jobs=[
            pipeline,
            nli_model_training,
            verifier_training,
            direction_reader_training,
            reranker_training,
            adapter.nli_adapter_training,
            rescoring,
        ],
        resources=build_resources(home, config),
        schedules=[schedules.watched_tasks_schedule],
        sensors=[
            task_status.task_status_sensor,
            run_queue.task_run_requests_sensor,
            adapter.nli_corrections_sensor,
            adapter.nli_version_sensor,
        ],
        loggers={
            "console": console_without_interruptions
        },  # Ctrl-C is the CLI's one line, not two tracebacks
    )
