"""Every per-task table asset is declared once (``lyra_assets.task_assets``): partitioned by task,
stored through the table IO manager, grouped by the package it lives in and versioned by its
module's logic; the evidence checks judge the frames they are handed."""

from __future__ import annotations

import pandas as pd
import pytest

from lyra_assets import definitions
from lyra_assets.code_versions import code_version
from lyra_assets.evidence.checks import edge_problems, score_problems
from lyra_assets.partitions import task_partitions
from lyra_assets.table_io import LYRA_TABLES
from lyra_assets.task_assets import asset_group
from lyra_resources.schema import PER_TASK_TABLES


def test_the_group_is_the_package_or_module_under_lyra_assets():
    assert asset_group("lyra_assets.evidence.claims") == "evidence"
    assert asset_group("lyra_assets.sources") == "sources"
    with pytest.raises(ValueError, match="not a module of lyra_assets"):
        asset_group("lyra_tools.cli")


def _modules_of_assets():
    for assets_def in [*definitions.ASSETS, *definitions.MODEL_ASSETS]:
        module = assets_def.op.compute_fn.decorated_fn.__module__
        for key in assets_def.keys:
            yield assets_def, key, module


def test_every_asset_is_grouped_and_versioned_by_the_module_that_declares_it():
    seen = set()
    for assets_def, key, module in _modules_of_assets():
        seen.add(key.to_user_string())
        assert assets_def.group_names_by_key[key] == asset_group(module)
        assert assets_def.code_versions_by_key[key] == code_version(module)
    assert {"papers", "nli_edges", "task_answer", "task_report", "task_graph", "nli_model"} <= seen


def test_every_per_task_table_asset_is_partitioned_by_task_and_stored_by_the_table_io_manager():
    tables = [(a, k) for a, k, _ in _modules_of_assets() if k.path[-1] in PER_TASK_TABLES]
    assert len(tables) == 17
    for assets_def, key in tables:
        assert assets_def.partitions_def == task_partitions
        assert assets_def.specs_by_key[key].kinds == {"duckdb", "parquet"}
        output = assets_def.get_output_name_for_asset_key(key)
        assert assets_def.node_def.output_def_named(output).io_manager_key == LYRA_TABLES


def test_the_edge_check_counts_dangling_duplicate_and_unknown_edges():
    edges = pd.DataFrame(
        {
            "edge_id": ["e1", "e1", "e3"],
            "fragment_id": ["f1", "f9", "f1"],
            "claim_id": ["c1", "c1", "c8"],
            "relation": ["SUPPORTS", "MAYBE", "NEUTRAL"],
        }
    )
    problems = edge_problems(edges, pd.DataFrame({"fragment_id": ["f1"]}), pd.DataFrame({"claim_id": ["c1"]}))
    assert problems == {
        "dangling_fragments": 1,
        "dangling_claims": 1,
        "duplicate_edge_ids": 1,
        "unknown_relations": 1,
    }
    assert not any(
        edge_problems(
            edges.iloc[[0]], pd.DataFrame({"fragment_id": ["f1"]}), pd.DataFrame({"claim_id": ["c1"]})
        ).values()
    )


def test_the_score_check_finds_a_verdict_its_figures_do_not_give():
    scores = pd.DataFrame(
        {
            "confidence": [0.9, 0.5, 1.2],
            "uncertainty": [0.1, 0.2, 0.1],
            "controversy": [0.0, 0.0, 0.0],
            "certainty": ["moderate", "low", "low"],
            "verdict": ["well_supported", "well_supported", "supported"],
        }
    )
    problems = score_problems(scores)
    assert problems["out_of_range"] == 1
    assert problems["inconsistent_verdicts"] >= 1
