"""The last step of a task run: the `task_graph` asset publishes the generation the run built.

Runs that include `task_graph` (`task_pipeline`, `nli_rescoring`, or any selection with it) get a
store that stages every per-task write under the run id (see `lyra_resources.generations`);
`task_graph` swaps the staged rows in at once. A run without it (one asset materialized from the
Dagster UI) writes in place, one table at a time.
"""

from collections.abc import Sequence

from dagster import (
    AssetExecutionContext,
    AssetsDefinition,
    InitResourceContext,
    MaterializeResult,
    MetadataValue,
    asset,
)

from lyra_assets.metadata import task_metadata
from lyra_assets.partitions import task_partitions
from lyra_assets.runs import PARTITION_TAG
from lyra_resources.generations import open_generation, publish_generation
from lyra_resources.store import LyraStore

PUBLISH_ASSET = "task_graph"


class TaskStore(LyraStore):
    """The store as a task run's assets use it: writes of a publishing run are staged."""

    def setup_for_execution(self, context: InitResourceContext) -> None:
        self._staged = None
        run = context.run
        task_id = run.tags.get(PARTITION_TAG) if run is not None else None
        if task_id is None:
            return
        if PUBLISH_ASSET in _planned_steps(context):
            open_generation(self, task_id, run.run_id, run.parent_run_id)

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        self._staged = None


def _planned_steps(context: InitResourceContext) -> set[str]:
    """The steps this run executes, from its execution plan (a re-execution runs a subset)."""
    run = context.run
    plan = (context.instance.get_execution_plan_snapshot(run.execution_plan_snapshot_id)
            if context.instance is not None and run.execution_plan_snapshot_id else None)
    steps = {step.key for step in plan.steps} if plan is not None else set()
    return steps & set(run.step_keys_to_execute) if run.step_keys_to_execute is not None else steps


def publishing_asset(upstream: Sequence[AssetsDefinition]) -> AssetsDefinition:
    """``task_graph`` depending on every asset of ``upstream`` (each key of a multi-asset), so it
    runs last and only when all succeeded."""

    @asset(name=PUBLISH_ASSET, partitions_def=task_partitions, group_name="graph", deps=upstream,
           kinds={"duckdb", "parquet"}, code_version="1")
    def task_graph(context: AssetExecutionContext, store: LyraStore) -> MaterializeResult:
        """The task's published graph: every table the run wrote, made visible at once.

        The run's staged rows replace the previous generation in one DuckDB transaction, and the
        Parquet files are rewritten after the commit. Until this step succeeds, readers see the
        previous generation whole.
        """
        counts = publish_generation(store, context.partition_key, context.run.run_id)
        return MaterializeResult(metadata={"dagster/row_count": MetadataValue.int(sum(counts.values())),
                                           "tables": MetadataValue.json(counts),
                                           **task_metadata(store, context.partition_key)})

    return task_graph
