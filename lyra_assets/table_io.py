"""``LyraTableIOManager``: Lyra's per-task tables as the values assets take and return.

An asset bound to it (``io_manager_key=LYRA_TABLES``) returns its rows as a DataFrame, and an asset
that reads a table declares it as a parameter (``ins={"pages": table_input(documents.pages)}``):
Dagster hands the frame over, so lineage shows the data each asset reads, and a test calls the
asset function with frames.

The IO manager does no I/O of its own: it uses the run's one store (the ``store`` resource, a
:class:`lyra_assets.graph.publish.TaskStore`), so what it writes and reads is exactly what an asset writing
through the store itself would: in a run that publishes the task's graph the rows are staged under
the run's generation (``lyra_resources.store.generations``) and each input is the task's rows as the run
sees them (its staged rows once it opened its generation); in a run that writes in place each output
replaces the task's rows in one transaction and switches its Parquet files.

The table is the asset key's last component (a per-task table of ``lyra_resources.schema``), the
partition the task id. The tables of one step change together: a multi-asset's outputs are held
until the step has handed over the last of them, then written in one transaction
(``LyraStore.replace_partitions``), so a step that fails half-way writes none of them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from dagster import (
    AssetIn,
    AssetsDefinition,
    AssetSpec,
    DagsterInvariantViolationError,
    InitResourceContext,
    InputContext,
    IOManager,
    OutputContext,
    io_manager,
)

from lyra_assets.metadata import task_metadata
from lyra_assets.reuse import ReusedRows
from lyra_resources.schema import PER_TASK_TABLES
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.store.lyra_store import LyraStore, StoreError, TaskRecord
from lyra_resources.store.run_inputs import RunInputs, run_inputs
from lyra_resources.store.table_inputs import record_table_inputs

LYRA_TABLES = "lyra_tables"  # the resource key of the IO manager
TASK_ROW = (
    "task"  # the external asset whose value is the task's row of `tasks` (lyra_assets.task_assets.TASK)
)


def table_input(upstream: AssetsDefinition | AssetSpec) -> AssetIn:
    """An asset input that receives the task's rows of ``upstream``'s table, loaded by the IO manager."""
    return AssetIn(key=upstream.key, input_manager_key=LYRA_TABLES)


class LyraTableIOManager(IOManager):
    """Writes an asset's DataFrame as the task's rows of its table, and loads a table's task rows
    as an input, both through ``store``."""

    def __init__(self, store: LyraStore, settings: LyraSettings) -> None:
        self.store = store
        self.settings = settings  # the run's: what ``lyra_assets.reuse`` compares
        self._held: dict[str, dict[str, pd.DataFrame]] = {}  # step key → the tables it has handed over
        self._inputs: dict[
            tuple[str, str], str | None
        ] = {}  # (task, table) → the digest its rows are built from
        self._outside: dict[str, RunInputs] = {}  # task → what the run reads outside its tables
        self._tasks: dict[str, TaskRecord] = {}  # task → its row as the run began: its question never changes

    def outside_inputs(self, task_id: str) -> RunInputs:
        """The run's outside inputs for the task (question, settings, corpus files, models, domain
        policy, feedback: ``run_inputs``), read once per run and task, not once per asset."""
        if task_id not in self._outside:
            self._outside[task_id] = run_inputs(
                self.store, self._task(task_id), self.settings, Path(self.store.home)
            )
        return self._outside[task_id]

    def _task(self, task_id: str) -> TaskRecord:
        """The task's row, read once per run: a table's metadata names its question."""
        if task_id not in self._tasks:
            self._tasks[task_id] = self.store.require_task(task_id)
        return self._tasks[task_id]

    def expect_inputs(self, task_id: str, tables: list[str], digest: str | None) -> None:
        """The rows the step is about to hand over for ``tables`` are built from inputs of ``digest``
        (``lyra_assets.reuse``): recorded with them once they are written."""
        for table in tables:
            self._inputs[(task_id, table)] = digest

    def handle_output(self, context: OutputContext, obj: pd.DataFrame) -> None:
        """Replace the task's rows of the asset's table with ``obj`` (staged in a publishing run),
        together with the step's other tables once it has handed over all of them; the
        materialization gets the task's question and the path of its Parquet file."""
        table, task_id = _table(context), _task(context)
        if isinstance(obj, ReusedRows):  # the standing rows (the generation's copy of them) stay
            context.add_output_metadata(task_metadata(self.store, self._task(task_id), table))
            return
        if not isinstance(obj, pd.DataFrame):
            raise StoreError(
                f"asset {context.asset_key.to_user_string()} returned {type(obj).__name__}, "
                "not the DataFrame of its table's rows"
            )
        outputs = _step_outputs(context)
        written: list[str] = []
        if len(outputs) == 1:
            self.store.replace_partition(table, task_id, obj)
            written = [table]
        else:  # a multi-asset's tables: written together when the step has handed over the last one
            held = self._held.setdefault(context.step_key, {})
            held[table] = obj
            if len(held) == len(outputs):
                written = list(self._held.pop(context.step_key))
                self.store.replace_partitions(task_id, {name: held[name] for name in written})
        digests = {self._inputs.pop((task_id, name), None) for name in written}
        if written and None not in digests and len(digests) == 1:
            record_table_inputs(self.store, task_id, context.run_id, written, digests.pop())
        context.add_output_metadata(task_metadata(self.store, self._task(task_id), table))

    def load_input(self, context: InputContext) -> pd.DataFrame | TaskRecord:
        """The task's rows of the upstream asset's table, as this run sees them: every column,
        ``task_id`` included, in ``LyraStore.read_partition``'s order; for the ``task`` input, the
        task's own row (its question and options)."""
        if context.has_asset_key and context.asset_key.path[-1] == TASK_ROW:
            return self.store.require_task(_task(context))
        return self.store.read_partition(_table(context), _task(context))


@io_manager(
    required_resource_keys={"store", "settings"},
    description="Lyra's per-task tables: an asset's DataFrame becomes the task's rows of its table "
    "(staged while a run builds the task's next graph), and an input is read from them.",
)
def lyra_tables(init_context: InitResourceContext) -> LyraTableIOManager:
    """The IO manager over the run's store and settings, both required resources.

    It names the ``store`` resource by key rather than nesting a store of its own (a Pythonic
    ``ConfigurableIOManagerFactory`` with a ``TaskStore`` field): Dagster sets a nested resource up
    as a second instance, which would open a second generation in a publishing run. By key, the
    IO manager writes into the one generation the assets' store opened."""
    store: LyraStore = init_context.resources.store
    settings: LyraSettings = init_context.resources.settings
    return LyraTableIOManager(store, settings)


def _table(context: InputContext | OutputContext) -> str:
    if not context.has_asset_key:
        raise StoreError("Lyra's table IO manager stores assets only (an op output has no table)")
    table = context.asset_key.path[-1]
    if table not in PER_TASK_TABLES:
        raise StoreError(
            f"asset {context.asset_key.to_user_string()} names no per-task table; "
            f"per-task tables: {', '.join(PER_TASK_TABLES)}"
        )
    return table


def _step_outputs(context: OutputContext) -> set[str]:
    """The outputs this step produces through this IO manager: one for an asset, each selected
    table for a multi-asset."""
    try:
        step = context.step_context
    except DagsterInvariantViolationError:  # handed an output outside a run (a test): nothing to wait for
        return {_table(context)}
    op = context.op_def
    return {
        name for name in step.selected_output_names if op.output_def_named(name).io_manager_key == LYRA_TABLES
    }


def _task(context: InputContext | OutputContext) -> str:
    if not context.has_asset_partitions:
        raise StoreError(
            f"asset {context.asset_key.to_user_string()} is not partitioned by task: "
            "Lyra's table IO manager needs the task (the partition key)"
        )
    return context.asset_partition_key
