"""Re-runs that rebuild only what changed: an asset whose code and inputs are those its table's
standing rows were built from keeps those rows instead of computing them again.

An asset's inputs digest covers its code (``lyra_assets.code_versions``), the rows of every table
it takes as an input, and the run's outside inputs that every asset may read (the question and
options, the settings, the models, the domain policy, the feedback; the corpus files for an asset
that reads them: ``lyra_resources.store.run_inputs``). When the digest equals the one recorded for
the rows that stand for its table (``lyra_resources.store.table_inputs``), the asset returns
``ReusedRows`` and the table IO manager leaves the rows as they are (in a publishing run, the
generation's copy of them); otherwise it computes, and the IO manager records the digest with the
rows it writes. So a re-run after a corpus change re-runs the paper search and stops wherever a
table came out as before, and a change to one asset's code re-runs that asset and what its new
rows change. A task that asks live sources has no digest: its assets always run. A run tagged
``lyra/rebuild`` (``lyra task run --force``) re-computes every table. docs/architecture.md says more.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from typing import Any

import pandas as pd
from dagster import (
    AssetExecutionContext,
    DagsterInvariantViolationError,
    DagsterUnknownResourceError,
    MetadataValue,
    Output,
)

from lyra_assets.code_versions import code_version
from lyra_resources.store.run_inputs import RunInputs
from lyra_resources.store.table_inputs import standing_inputs

REBUILD_TAG = "lyra/rebuild"  # "1": every asset of the run computes its rows
_SHARED_INPUTS = ("task", "settings", "models", "domains", "feedback")


class ReusedRows(pd.DataFrame):
    """What an asset returns for a table whose standing rows it keeps: no rows of its own."""


def frame_digest(frame: pd.DataFrame) -> str:
    """The digest of a table's rows as an asset receives them (columns, order and values)."""
    text = frame.to_json(orient="split", date_format="iso", default_handler=str, double_precision=15)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def inputs_digest(
    code: str, world: RunInputs, frames: dict[str, pd.DataFrame], *, reads_corpus: bool
) -> str | None:
    """The digest of an asset's code, input tables and outside inputs (None: the task asks live sources)."""
    if world.digest is None:
        return None
    shared = {name: world.parts[name] for name in (*_SHARED_INPUTS, *(("corpus",) if reads_corpus else ()))}
    parts = {
        "code": code,
        **shared,
        **{f"table:{name}": frame_digest(frame) for name, frame in sorted(frames.items())},
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]


def reuses_unchanged_rows(*, reads_corpus: bool = False) -> Callable:
    """Make a per-task asset keep its table's standing rows when its code and inputs are unchanged
    (see the module's docstring). Put it under ``@asset``/``@multi_asset``; the asset's table
    inputs are its DataFrame parameters. Called outside a run (a test handing it frames), the
    asset computes as it is."""

    def decorate(compute: Callable) -> Callable:
        code = code_version(compute.__module__)

        @functools.wraps(compute)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                context = AssetExecutionContext.get()
                tables_io = context.resources.lyra_tables
            except (DagsterInvariantViolationError, AttributeError, DagsterUnknownResourceError):
                return compute(*args, **kwargs)  # invoked directly, with frames: nothing to compare with
            store, task_id = tables_io.store, context.partition_key
            world = tables_io.outside_inputs(task_id)
            frames = {name: value for name, value in kwargs.items() if isinstance(value, pd.DataFrame)}
            digest = inputs_digest(code, world, frames, reads_corpus=reads_corpus)
            keys = sorted(context.selected_asset_keys, key=lambda key: key.to_user_string())
            tables = [key.path[-1] for key in keys]
            rebuild = context.run.tags.get(REBUILD_TAG) == "1"
            if (
                digest is not None
                and not rebuild
                and set(standing_inputs(store, task_id, tables).values()) == {digest}
            ):
                context.log.info(
                    f"{', '.join(tables)}: code and inputs as when the rows were built; rows kept"
                )
                return _reused(context, digest)
            tables_io.expect_inputs(task_id, tables, digest)
            return compute(*args, **kwargs)

        return run

    return decorate


def _reused(context: AssetExecutionContext, digest: str) -> Output | tuple[Output, ...]:
    """One ``ReusedRows`` output per table of the step, in the order of its outputs."""
    kept = {"reused": MetadataValue.text(f"rows kept: code and inputs unchanged (inputs {digest})")}
    outputs = tuple(
        Output(ReusedRows(), output_name=out.name, metadata=kept)
        for out in context.op_def.output_defs
        if context.assets_def.keys_by_output_name.get(out.name) in context.selected_asset_keys
    )
    return outputs[0] if len(outputs) == 1 else outputs
