"""Learning from corrections, the Dagster side: the `nli_adapter` asset (job
`nli_adapter_training`), the `nli_corrections_sensor` that requests it once enough corrections
wait, and the `nli_version_sensor` that re-scores the tasks a newly active NLI version affects
(job `nli_rescoring`: `nli_edges` and everything downstream, one run per task partition).

Thin over `lyra_training.corrections` and `lyra_resources.models.nli_versions`.
"""

import json
from datetime import datetime
from pathlib import Path

from dagster import (
    AssetExecutionContext,
    AssetSelection,
    Config,
    DefaultSensorStatus,
    ExecutorDefinition,
    Failure,
    MaterializeResult,
    MetadataValue,
    ResourceParam,
    RunRequest,
    RunsFilter,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    asset,
    define_asset_job,
    sensor,
)
from pydantic import Field

from lyra_assets.evidence import checks, judging
from lyra_assets.execution.runs import (
    ACTIVE_STATUSES,
    ADAPTER_JOB,
    NLI_VERSION_TAG,
    RESCORING_JOB,
    TRIGGER_TAG,
    task_tags,
)
from lyra_assets.partitions import TASKS_PARTITION
from lyra_assets.task_assets import declared_in
from lyra_resources.models.local_models import LocalModels
from lyra_resources.models.nli_versions import active_version, affected_tasks
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.store.lyra_store import LyraStore
from lyra_training.adapters import NLI_TRAINABLE, LearningError
from lyra_training.corrections import learn_from_corrections


def adapters_dir(store: LyraStore) -> Path:
    """Adapters live under the Lyra home, never in the package."""
    return Path(store.home) / "models" / "nli_adapters"


class AdapterTrainingConfig(Config):
    cutoff: str = Field("", description="ISO time: learn from corrections made up to it (empty: all)")
    force: bool = Field(False, description="train even when no correction is new since the last adapter")


@asset(kinds={"pytorch", "duckdb"}, **declared_in(__name__))
def nli_adapter(
    context: AssetExecutionContext,
    config: AdapterTrainingConfig,
    store: ResourceParam[LyraStore],
    models: LocalModels,
    settings: ResourceParam[LyraSettings],
) -> MaterializeResult:
    """A LoRA adapter for the NLI model, learned from people's corrections of edges.

    Trained on `nli_corrections` plus an SNLI replay sample, then gated against the active
    version on held-out corrections and the SNLI regression set, and recorded in
    `nli_model_versions` as `active` or `rejected` with its figures. A failure leaves the active
    model and every table unchanged.
    """
    cutoff = datetime.fromisoformat(config.cutoff) if config.cutoff else None
    try:
        outcome = learn_from_corrections(
            store,
            adapters_dir(store),
            models.nli_base_path,
            settings.learning,
            cutoff=cutoff,
            threads=models.threads,
            require_new=not config.force,
            progress=context.log.info,
        )
    except LearningError as exc:
        raise Failure(description=str(exc)) from exc
    gate = outcome.gate
    return MaterializeResult(
        metadata={
            "version": MetadataValue.text(outcome.version.version),
            "status": MetadataValue.text(outcome.version.status),
            "decision": MetadataValue.text(gate.reason),
            "path": MetadataValue.path(outcome.version.adapter_path or ""),
            "corrections_trained_on": MetadataValue.int(outcome.train_corrections),
            "corrections_held_out": MetadataValue.int(outcome.heldout_corrections),
            "new_corrections": MetadataValue.int(outcome.new_corrections),
            "replay_pairs": MetadataValue.int(outcome.report.replay_pairs),
            "steps": MetadataValue.int(outcome.report.steps),
            "train_seconds": MetadataValue.float(outcome.report.seconds),
            "heldout_accuracy_before": MetadataValue.float(gate.heldout_before.accuracy),
            "heldout_accuracy_after": MetadataValue.float(gate.heldout_after.accuracy),
            "snli_regression_before": MetadataValue.float(gate.regression_before.accuracy),
            "snli_regression_after": MetadataValue.float(gate.regression_after.accuracy),
        }
    )


nli_adapter_training = define_asset_job(
    ADAPTER_JOB,
    selection=[nli_adapter],
    description="Train a LoRA adapter for the NLI model from corrections and gate it.",
)


# Returns an unresolved asset job, a type `dagster` exports no name for (hence no annotation).
def rescoring_job(executor: ExecutorDefinition | None = None):
    """The `nli_rescoring` job, its steps on ``executor`` (``None``: the job's default, in the
    run's process)."""
    return define_asset_job(
        RESCORING_JOB,
        selection=AssetSelection.assets(judging.nli_edges).downstream()
        | AssetSelection.checks(checks.nli_edges_are_well_formed, checks.claim_scores_are_consistent),
        description="Re-judge one task's edges with the active NLI version and re-score its claims.",
        executor_def=executor,
    )


nli_rescoring = rescoring_job()


def training_in_progress(context: SensorEvaluationContext) -> bool:
    active = RunsFilter(job_name=ADAPTER_JOB, statuses=list(ACTIVE_STATUSES))
    return bool(context.instance.get_runs(filters=active, limit=1))


def waiting_corrections(store: LyraStore, after: str | None) -> tuple[int, datetime | None]:
    """Corrections not yet used for training and newer than the cursor: count and the newest time.
    Only rows past the cursor are read, never the whole table."""
    sql = (
        "SELECT count(*) AS n, max(corrected_at) AS newest FROM nli_corrections "
        f"WHERE applied_in_version IS NULL AND {NLI_TRAINABLE}"
    )
    params: list[object] = []
    if after:
        sql += " AND corrected_at > CAST(? AS TIMESTAMP)"
        params.append(after)
    row = store.fetch_df(sql, params).iloc[0]
    newest = row["newest"]
    return int(row["n"]), (newest.to_pydatetime() if newest is not None and newest == newest else None)


@sensor(
    job=nli_adapter_training,
    minimum_interval_seconds=60,
    default_status=DefaultSensorStatus.RUNNING,
    description="Requests one nli_adapter_training run when the corrections not yet used for training "
    "reach learning.correction_threshold; the cursor is the newest correction already handed "
    "to a training, so no correction triggers two.",
)
def nli_corrections_sensor(
    context: SensorEvaluationContext, store: ResourceParam[LyraStore], settings: ResourceParam[LyraSettings]
) -> SensorResult | SkipReason:
    threshold = settings.learning.correction_threshold
    if training_in_progress(context):
        return SkipReason("an nli_adapter_training run is in progress")
    count, newest = waiting_corrections(store, context.cursor or None)
    if count < threshold or newest is None:
        return SkipReason(f"{count} new correction(s) waiting; training starts at {threshold}")
    cutoff = newest.isoformat()
    return SensorResult(
        run_requests=[
            RunRequest(
                run_key=f"nli-adapter-{cutoff}",
                tags={TRIGGER_TAG: "nli_corrections_sensor"},
                run_config={"ops": {"nli_adapter": {"config": {"cutoff": cutoff}}}},
            )
        ],
        cursor=cutoff,
    )


@sensor(
    job_name=RESCORING_JOB,
    minimum_interval_seconds=60,
    default_status=DefaultSensorStatus.RUNNING,
    description="When the active NLI version changes, requests one nli_rescoring run per task whose edges "
    "another version judged (human corrections stay in force over the new edges).",
)
def nli_version_sensor(
    context: SensorEvaluationContext, store: ResourceParam[LyraStore], models: LocalModels
) -> SensorResult | SkipReason:
    active = active_version(store, models.nli_base_path).version
    if context.cursor == active:
        return SkipReason(f"active NLI version unchanged: {active}")
    known = set(context.instance.get_dynamic_partitions(TASKS_PARTITION))
    tasks = [t for t in affected_tasks(store, active) if t in known]
    requests = []
    for task in tasks:
        row = store.get_task(task)
        requests.append(
            RunRequest(
                partition_key=task,
                run_key=f"rescore-{active}-{task}",
                tags={
                    **task_tags(task, row.query if row else None),
                    TRIGGER_TAG: "nli_version_sensor",
                    NLI_VERSION_TAG: active,
                },
            )
        )
    context.log.info(json.dumps({"active": active, "tasks": tasks}))
    return SensorResult(run_requests=requests, cursor=active)
