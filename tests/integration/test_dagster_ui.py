"""What the Dagster UI shows: table schemas from the registry, task metadata on every
materialization, previews that read as text, code versions, and the shipped models."""

import re

import pandas as pd
from dagster import (
    AssetKey,
    AssetMaterialization,
    AssetRecordsFilter,
    DagsterInstance,
    materialize,
)

from lyra_assets.definitions import TASK_RUN_ASSETS, build_definitions, build_resources
from lyra_assets.evidence.judging import edges_preview
from lyra_assets.execution.runs import open_instance
from lyra_assets.metadata import TASK_COLUMN_DESCRIPTION, column_schema, markdown_preview, table_metadata
from lyra_assets.partitions import TASKS_PARTITION
from lyra_assets.shipped_models import SHIPPED_TAG, record_shipped_models
from lyra_assets.table_io import TASK_ROW
from lyra_resources.models.model_files import (
    DEFAULT_DIRECTION_DIR,
    DEFAULT_NLI_DIR,
    DEFAULT_SNLI_DIR,
    base_version,
)
from lyra_resources.schema import PER_TASK_TABLES, STAGING_TABLES, TABLES
from lyra_resources.schema.columns import TASK_ID_DESCRIPTION, table
from lyra_resources.store.lyra_store import LyraStore


def test_every_table_asset_carries_its_registry_schema_table_and_parquet_location(lyra_home):
    specs = {s.key.to_user_string(): s for s in build_definitions(lyra_home).resolve_all_asset_specs()}
    tables = [name for name in specs if name in TABLES]
    assert {"papers", "claims", "nli_edges", "claim_scores", "task_answer", "serp_results"} <= set(tables)
    for name in tables:
        metadata = specs[name].metadata
        columns = [(c.name, c.type) for c in metadata["dagster/column_schema"].columns]
        assert columns == [(c.name, c.type) for c in TABLES[name].columns], name
        assert all(c.description for c in metadata["dagster/column_schema"].columns), name
        assert metadata["dagster/table_name"] == f"lyra.main.{name}"
        assert metadata["parquet_files"].value == str(
            lyra_home / "parquet" / name / "task_id=<task>" / "data.parquet"
        )
    assert "dagster/column_schema" not in specs["task_graph"].metadata  # no table of that name


def test_every_column_of_every_registry_table_says_what_it_holds():
    for name, spec in TABLES.items():
        shown = column_schema(spec).columns
        assert [c.name for c in shown] == spec.column_names, name
        for column in shown:
            assert column.description and column.description.strip(), f"{name}.{column.name}"
    for spec in STAGING_TABLES.values():  # staged rows carry the descriptions of the table they copy
        assert all(c.description for c in spec.columns), spec.name
    papers = column_schema(TABLES["papers"]).columns
    assert papers[0].description == TASK_COLUMN_DESCRIPTION  # the partition key keeps its own text
    assert TABLES["citation_papers"].columns[1].description == TABLES["papers"].columns[1].description


def test_a_column_line_takes_its_description_after_the_type():
    spec = table(
        "t",
        "a table",
        """
    task_id VARCHAR
    n DOUBLE DEFAULT 1.0 -- a count -- of things
    id VARCHAR PRIMARY KEY
    """,
    )
    assert [(c.name, c.type, c.description) for c in spec.columns] == [
        ("task_id", "VARCHAR", TASK_ID_DESCRIPTION),
        ("n", "DOUBLE DEFAULT 1.0", "a count -- of things"),
        ("id", "VARCHAR PRIMARY KEY", ""),
    ]
    assert (
        spec.ddl()
        == "CREATE TABLE IF NOT EXISTS t (task_id VARCHAR, n DOUBLE DEFAULT 1.0, id VARCHAR PRIMARY KEY)"
    )


def test_every_asset_carries_a_code_version(lyra_home):
    specs = list(build_definitions(lyra_home).resolve_all_asset_specs())
    assert len(specs) >= 20
    for spec in specs:  # a version moves when its asset's logic changes (Dagster then marks it stale)
        if spec.key.path[-1] == TASK_ROW:
            continue  # the task itself: an external asset, written when the task is created, by no code of a run
        assert spec.code_version, spec.key
        if spec.key.path[-1] in PER_TASK_TABLES:  # the digest of its module and the Lyra modules it imports
            assert re.fullmatch(r"[0-9a-f]{16}", spec.code_version), spec.key


def test_a_materialization_names_the_question_and_the_parquet_file(lyra_home, small_corpus):
    store = LyraStore.at(lyra_home)
    task = store.create_task(
        "Does vitamin D supplementation reduce fracture risk?", {"corpus": [str(small_corpus)]}
    )
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task.id])
        result = materialize(
            TASK_RUN_ASSETS,
            partition_key=task.id,
            resources=build_resources(lyra_home),
            instance=instance,
            selection=["papers", "claim_scope"],
        )
    metadata = next(
        m.metadata
        for m in result.asset_materializations_for_node("paper_search")
        if m.asset_key.to_user_string() == "papers"
    )
    assert metadata["question"].value == task.query
    assert metadata["parquet"].path == str(store.parquet_path("papers", task.id))
    assert metadata["dagster/row_count"].value == len(store.read_partition("papers", task.id))


def test_table_metadata_without_a_task_keeps_its_old_form():
    frame = pd.DataFrame({"text": ["a finding"], "score": [0.123456]})
    metadata = table_metadata(frame, ["text", "score"], note="kept")
    assert set(metadata) == {"dagster/row_count", "preview", "note"}
    assert "| a finding | 0.123 |" in metadata["preview"].value


def test_the_edges_preview_reads_claim_and_fragment_text_most_decisive_first():
    edges = pd.DataFrame(
        {
            "claim_id": ["c1", "c1"],
            "fragment_id": ["f1", "f2"],
            "relation": ["NEUTRAL", "SUPPORTS"],
            "p_supports": [0.2, 0.9],
            "p_refutes": [0.1, 0.05],
        }
    )
    claims_frame = pd.DataFrame({"claim_id": ["c1"], "text": ["Vitamin D lowers fracture risk."]})
    fragments = pd.DataFrame(
        {"fragment_id": ["f1", "f2"], "text": ["Sleep matters. " * 10, "Fractures fell (RR 0.70)."]}
    )
    preview = markdown_preview(
        edges_preview(edges, claims_frame, fragments),
        ["claim", "fragment", "relation", "p_supports", "p_refutes"],
    )
    rows = preview.splitlines()[2:]
    assert (
        rows[0]
        == "| Vitamin D lowers fracture risk. | Fractures fell (RR 0.70). | SUPPORTS | 0.900 | 0.050 |"
    )
    assert "…" in rows[1]  # a long fragment is cut


def _materializations(instance: DagsterInstance, asset: str):
    return instance.fetch_materializations(AssetRecordsFilter(asset_key=AssetKey(asset)), limit=10).records


def test_a_fresh_home_shows_the_shipped_models_as_materialized_once(lyra_home):
    with open_instance(lyra_home) as instance:
        for asset, model_dir in (("nli_model", DEFAULT_SNLI_DIR), ("verifier_model", DEFAULT_NLI_DIR)):
            event = instance.get_latest_materialization_event(AssetKey(asset))
            assert event is not None, asset
            materialization = event.asset_materialization
            assert materialization.tags[SHIPPED_TAG] == "true"
            assert materialization.metadata["path"].path == str(model_dir)
            assert materialization.metadata["version"].value == base_version(model_dir)
        assert materialization.metadata["out_of_fold_accuracy"].value > 0.5  # the verifier's card
        assert record_shipped_models(instance) == []  # idempotent
    with open_instance(lyra_home) as instance:
        assert len(_materializations(instance, "nli_model")) == 1
        assert len(_materializations(instance, "verifier_model")) == 1
        first = instance.get_latest_materialization_event(AssetKey("nli_model")).asset_materialization
        assert first.metadata["snli_test_accuracy"].value > 0.5
        reader = instance.get_latest_materialization_event(AssetKey("direction_reader")).asset_materialization
        assert reader.metadata["path"].path == str(DEFAULT_DIRECTION_DIR)
        assert reader.metadata["evidence_inference_test_macro_f1"].value > 0.6


def test_a_home_that_trained_its_own_model_is_not_told_otherwise():
    with DagsterInstance.ephemeral() as instance:
        instance.report_runless_asset_event(AssetMaterialization("nli_model", metadata={"path": "/trained"}))
        assert record_shipped_models(instance) == ["verifier_model", "direction_reader"]
        assert len(_materializations(instance, "nli_model")) == 1
