"""The last step of a task run: the `task_graph` asset publishes the generation the run built.

Runs that include `task_graph` (`task_pipeline`, `nli_rescoring`, or any selection with it) get a
store that stages every per-task write under the run id (see `lyra_resources.store.generations`);
`task_graph` swaps the staged rows in at once. A run without it (one asset materialized from the
Dagster UI) writes in place, one table at a time.

Each step process that met the database held by another (steps of one run on several workers,
or several runs at once) records what it waited in the run's event log (`store_lock_waits`).
"""

from collections.abc import Sequence

from dagster import (
    AssetExecutionContext,
    AssetsDefinition,
    ConfigurableResource,
    DagsterEventType,
    DagsterInstance,
    DagsterRun,
    InitResourceContext,
    MaterializeResult,
    MetadataValue,
    ResourceParam,
    asset,
)

# The only way to give an engine event metadata; `dagster` exports no name for it.
from dagster._core.events import EngineEventData
from pydantic import PrivateAttr

from lyra_assets.execution.runs import PARTITION_TAG, STORE_TAG
from lyra_assets.metadata import task_metadata
from lyra_assets.partitions import task_partitions
from lyra_assets.task_assets import declared_in
from lyra_resources.store.generations import open_generation, publish_generation
from lyra_resources.store.locks import LockWaits, StoreError, lock_waits
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.parquet_files import current_generation

PUBLISH_ASSET = "task_graph"
ASSET_RESUME_RETRY_TAG = "dagster/is_asset_resume_retry"  # Dagster's, on a re-execution from asset failure
LOCK_WAITS_MESSAGE = "store lock waits"


class TaskStore(LyraStore, ConfigurableResource):
    """The store as a task run's assets use it, a Dagster resource: writes of a publishing run are staged."""

    _waits_at_start: LockWaits = PrivateAttr(default_factory=LockWaits)

    def setup_for_execution(self, context: InitResourceContext) -> None:
        self._staged = None
        self._waits_at_start = lock_waits()
        run = context.run
        task_id = run.tags.get(PARTITION_TAG) if run is not None else None
        if task_id is None:
            return
        queued_for = run.tags.get(STORE_TAG)
        if queued_for is not None and queued_for != self.where:
            raise StoreError(
                f"this process's store is {self.where}, but run {run.run_id} was queued for the store "
                f"{queued_for}: start `lyra daemon` and `lyra worker` with the settings of the "
                "processes that queue runs ($LYRA_SETTINGS, $LYRA_POSTGRES_URL, $LYRA_HOME)"
            )
        if PUBLISH_ASSET in _planned_steps(context):
            open_generation(self, task_id, run.run_id, run.parent_run_id, partial=_resumes_failure(run))

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        self._staged = None
        waits = lock_waits().since(self._waits_at_start)
        if (waits.conflicts or waits.gave_up) and context.instance is not None and context.run is not None:
            context.instance.report_engine_event(
                f"{LOCK_WAITS_MESSAGE}: {waits.conflicts} conflicts ({waits.write_conflicts} write-write), "
                f"{waits.waited_s:.2f}s waited, {waits.gave_up} gave up",
                context.run,
                EngineEventData(metadata=waits.model_dump()),
            )


def store_lock_waits(instance: DagsterInstance, run_id: str) -> LockWaits:
    """What the run's step processes waited for the database, all together (nothing: no waits)."""
    total = LockWaits()
    for entry in instance.all_logs(run_id, of_type=DagsterEventType.ENGINE_EVENT):
        if entry.message.startswith(LOCK_WAITS_MESSAGE) and entry.dagster_event is not None:
            metadata = entry.dagster_event.engine_event_data.metadata
            total = total + LockWaits(**{key: value.value for key, value in metadata.items()})
    return total


def _resumes_failure(run: DagsterRun) -> bool:
    """Whether the run re-executes only what failed in its parent (from the UI's "from failure")."""
    return run.is_resume_retry or run.tags.get(ASSET_RESUME_RETRY_TAG) == "true"


def _planned_steps(context: InitResourceContext) -> set[str]:
    """The steps this run executes, from its execution plan (a re-execution runs a subset)."""
    run = context.run
    plan = (
        context.instance.get_execution_plan_snapshot(run.execution_plan_snapshot_id)
        if context.instance is not None and run.execution_plan_snapshot_id
        else None
    )
    steps = {step.key for step in plan.steps} if plan is not None else set()
    return steps & set(run.step_keys_to_execute) if run.step_keys_to_execute is not None else steps


def publishing_asset(upstream: Sequence[AssetsDefinition]) -> AssetsDefinition:
    """``task_graph`` depending on every asset of ``upstream`` (each key of a multi-asset), so it
    runs last and only when all succeeded."""

    @asset(
        name=PUBLISH_ASSET,
        partitions_def=task_partitions,
        deps=upstream,
        kinds={"duckdb", "parquet"},
        **declared_in(__name__),
    )
    def task_graph(context: AssetExecutionContext, store: ResourceParam[LyraStore]) -> MaterializeResult:
        """The task's published graph: every table the run wrote, made visible at once.

        The run's staged rows replace the previous generation in one DuckDB transaction, and the
        Parquet files follow as a generation folder of their own, switched in at once
        (``parquet_generation`` in the metadata: ``<home>/parquet/_generations/<task>/<run>.<n>``). Until this step
        succeeds, readers see the
        previous generation whole.
        """
        counts = publish_generation(store, context.partition_key, context.run.run_id)
        folder = current_generation(store.layout.parquet, context.partition_key)
        return MaterializeResult(
            metadata={
                "dagster/row_count": MetadataValue.int(sum(counts.values())),
                "tables": MetadataValue.json(counts),
                "parquet_generation": MetadataValue.path(str(folder or "")),
                **task_metadata(store, context.partition_key),
            }
        )

    return task_graph
