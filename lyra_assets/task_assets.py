"""How a per-task table asset is declared, once for all of them.

Every per-task table asset is partitioned by task, stored as DuckDB rows with Parquet copies
through ``LyraTableIOManager``, versioned by a digest of its module's logic, grouped by the
package or module it lives in, and keeps its standing rows when its code and inputs are unchanged
(``lyra_assets.reuse``). ``task_table`` (one table), ``task_tables`` (several tables written
together) and ``task_table_spec`` (one table of a multi-asset) say all of that, so an asset's own
decorator names only what is its own: the tables it reads. docs/architecture.md shows the groups.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from dagster import AssetsDefinition, AssetSpec, asset, multi_asset

from lyra_assets.code_versions import code_version
from lyra_assets.partitions import task_partitions
from lyra_assets.reuse import reuses_unchanged_rows
from lyra_assets.table_io import LYRA_TABLES, TASK_ROW, table_input

TABLE_KINDS = frozenset({"duckdb", "parquet"})

# The task itself, as the first input of the assets that read its question or options: an external
# asset (written by `lyra run`, `lyra verify` or MCP's create_task when the task is created, never
# by a run) whose value, loaded by the table IO manager, is the task's row (a TaskRecord).
TASK = AssetSpec(
    TASK_ROW,
    partitions_def=task_partitions,
    group_name="sources",
    kinds={"duckdb"},
    description="The research task: its question, kind and options, one row of `tasks`, written "
    "when the task is created. Every asset that reads the question or the options takes it "
    "as an input.",
)

Upstream = AssetsDefinition | AssetSpec


def asset_group(module: str) -> str:
    """The group of the assets a module defines: its package (or module) under ``lyra_assets``,
    e.g. ``lyra_assets.evidence.claims`` → ``evidence``, ``lyra_assets.sources`` → ``sources``."""
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "lyra_assets":
        raise ValueError(f"{module} is not a module of lyra_assets: its assets have no group")
    return parts[1]


def declared_in(module: str) -> dict[str, str]:
    """The group and code version of any asset declared in ``module`` (pass ``__name__``): for the
    assets that are not per-task tables (the report, the published graph, the models)."""
    return {"group_name": asset_group(module), "code_version": code_version(module)}


def task_table(
    *,
    ins: Mapping[str, Upstream] | None = None,
    deps: Iterable[Upstream | str] = (),
    reads_corpus: bool = False,
) -> Callable[[Callable], AssetsDefinition]:
    """Declare a per-task table asset: ``ins`` maps each parameter to the upstream table it
    receives (the task's rows, as this run sees them); ``deps`` are upstream assets it follows
    without reading their rows as a frame; ``reads_corpus`` adds the corpus files to what its
    row reuse compares (``lyra_assets.reuse``)."""

    def decorate(compute: Callable) -> AssetsDefinition:
        module = compute.__module__
        return asset(
            partitions_def=task_partitions,
            kinds=set(TABLE_KINDS),
            **declared_in(module),
            ins={name: table_input(upstream) for name, upstream in (ins or {}).items()},
            deps=list(deps),
            io_manager_key=LYRA_TABLES,
        )(reuses_unchanged_rows(reads_corpus=reads_corpus)(compute))

    return decorate


def task_table_spec(
    name: str, *, module: str, description: str, deps: Iterable[Upstream | str] = ()
) -> AssetSpec:
    """One table of a multi-asset (``task_tables``), declared in ``module`` (pass ``__name__``)."""
    return AssetSpec(
        name, kinds=set(TABLE_KINDS), deps=list(deps), description=description, **declared_in(module)
    ).with_io_manager_key(LYRA_TABLES)


def task_tables(
    specs: Sequence[AssetSpec], *, ins: Mapping[str, Upstream] | None = None, reuse_rows: bool = True
) -> Callable[[Callable], AssetsDefinition]:
    """Declare a step that writes several per-task tables in one transaction (each of ``specs``,
    made by ``task_table_spec``). ``reuse_rows=False`` for a step that must always run (the paper
    search records what the run reads)."""

    def decorate(compute: Callable) -> AssetsDefinition:
        body = reuses_unchanged_rows()(compute) if reuse_rows else compute
        upstream = list((ins or {}).values())
        with_inputs = [
            spec.merge_attributes(deps=[u for u in upstream if u.key not in {d.asset_key for d in spec.deps}])
            for spec in specs
        ]  # every table of the step depends on what the step reads
        return multi_asset(
            specs=with_inputs,
            partitions_def=task_partitions,
            ins={name: table_input(upstream) for name, upstream in (ins or {}).items()},
        )(body)

    return decorate
