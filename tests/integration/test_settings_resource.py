"""Settings reach the assets as a Dagster resource: built directly by a caller, or read from the
user's settings file by ``build_resources``, and shown by Dagster as the resource's config
(``lyra_resources.dagster_resources``: the settings themselves are plain pydantic)."""

from __future__ import annotations

import pytest
import yaml
from dagster import DagsterInstance, materialize

from fixtures.graphs import write_graph
from fixtures.tables import with_upstream_tables
from lyra_assets.definitions import build_definitions, build_resources
from lyra_assets.evidence.judging import claim_scores
from lyra_assets.partitions import TASKS_PARTITION
from lyra_assets.table_io import LYRA_TABLES, lyra_tables
from lyra_resources.settings.loading import LyraSettings, load_settings, shared_settings
from lyra_resources.settings.pipeline import EvidenceSettings, SettingsError
from lyra_resources.store.lyra_store import LyraStore


def scores_with(store: LyraStore, task_id: str, settings: LyraSettings):
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task_id])
        result = materialize(
            with_upstream_tables(claim_scores),
            partition_key=task_id,
            instance=instance,
            resources={"store": store, "settings": settings, LYRA_TABLES: lyra_tables},
        )
    assert result.success
    return store.read_partition("claim_scores", task_id).set_index("claim_id").sort_index()


def test_settings_built_directly_decide_what_an_asset_writes(lyra_home, monkeypatch):
    monkeypatch.setenv(
        "LYRA_SETTINGS", str(lyra_home / "no-such-settings.yaml")
    )  # never read: given directly
    store = LyraStore.at(lyra_home)
    graph = write_graph(store)
    bayesian = scores_with(store, graph.task_id, LyraSettings())
    legacy = scores_with(
        store, graph.task_id, LyraSettings(evidence=EvidenceSettings(use_bayesian_confidence=False))
    )
    assert set(bayesian["method"]) == {"bayesian"} and set(legacy["method"]) == {"legacy"}
    assert (bayesian["confidence"] != legacy["confidence"]).any()


def test_build_resources_reads_the_users_settings_file(tmp_path, monkeypatch):
    path = tmp_path / "settings.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "evidence": {"min_similarity": 0.37},
                "search": {"papers_per_source": 7},
                "corpus": [str(tmp_path / "library")],
            }
        )
    )
    monkeypatch.setenv("LYRA_SETTINGS", str(path))
    resources = build_resources(tmp_path / "home")
    settings = resources["settings"]
    assert isinstance(settings, LyraSettings) and settings.model_dump() == load_settings().model_dump()
    assert settings.evidence.min_similarity == 0.37 and settings.search.papers_per_source == 7
    assert (
        settings.evidence.nli_top_k == EvidenceSettings().nli_top_k
    )  # what the file leaves out keeps its default
    assert resources["literature"].default_corpus == [str(tmp_path / "library")]
    path.write_text(
        yaml.safe_dump({"evidence": {"min_similarity": 0.61}})
    )  # no cache: the next build reads it anew
    assert build_resources(tmp_path / "home")["settings"].evidence.min_similarity == 0.61


def test_the_definitions_carry_the_settings_as_a_resource_dagster_can_show(tmp_path):
    given = LyraSettings(evidence=EvidenceSettings(min_similarity=0.42))
    defs = build_definitions(tmp_path / "home", settings=given)
    resource = defs.resources["settings"]
    assert isinstance(resource, LyraSettings) and resource.model_dump() == given.model_dump()
    shown = resource.get_resource_definition()  # what Dagster registers for it
    # the values the UI lists under the resource are the ones given
    assert shown.config_field.default_value["evidence"]["min_similarity"] == 0.42
    assert shown.config_field.default_value["search"] == {"papers_per_source": 50}
    schema = type(resource).to_config_schema().as_field().config_type
    assert {"evidence", "search", "sources", "browser", "learning"} <= set(schema.fields)
    assert "min_similarity" in schema.fields["evidence"].config_type.fields  # every section is typed config


def test_an_unknown_search_engine_is_one_line_naming_the_known_ones(tmp_path, monkeypatch):
    import pytest

    from lyra_resources.settings.pipeline import SettingsError

    path = tmp_path / "settings.yaml"
    path.write_text("browser:\n  engines: [duckduckgo, yahoo]\n")
    monkeypatch.setenv("LYRA_SETTINGS", str(path))
    with pytest.raises(SettingsError) as raised:
        load_settings()
    message = str(raised.value)
    assert "\n" not in message and "browser.engines" in message and "'yahoo'" in message
    assert "duckduckgo, google_scholar, bing, google" in message


def test_the_cluster_profile_is_off_by_default_and_the_environment_wins():
    from lyra_resources.settings.pipeline import SettingsError
    from lyra_resources.settings.services import ClusterSettings

    assert LyraSettings().cluster.profile == "local"
    file = ClusterSettings(profile="local", postgres_url="postgresql://lyra@db/lyra", max_concurrent_runs=8)
    assert file.effective({}) == file
    chosen = file.effective({"LYRA_PROFILE": " Cluster ", "LYRA_REDIS_URL": "redis://broker:6379/0"})
    assert (chosen.profile, chosen.postgres_url, chosen.redis_url, chosen.max_concurrent_runs) == (
        "cluster",
        "postgresql://lyra@db/lyra",
        "redis://broker:6379/0",
        8,
    )
    with pytest.raises(SettingsError, match=r"\$LYRA_PROFILE is 'everywhere'; use local or cluster"):
        file.effective({"LYRA_PROFILE": "everywhere"})


def test_readers_share_the_validated_settings_until_the_file_changes(tmp_path, monkeypatch):
    path = tmp_path / "settings.yaml"
    path.write_text(yaml.safe_dump({"evidence": {"use_bayesian_confidence": True}}))
    monkeypatch.setenv("LYRA_SETTINGS", str(path))
    first = shared_settings()
    assert shared_settings() is first and first.evidence.use_bayesian_confidence
    path.write_text(yaml.safe_dump({"evidence": {"use_bayesian_confidence": False}}))
    assert not shared_settings().evidence.use_bayesian_confidence  # a changed file is read again
    monkeypatch.setenv("LYRA_SETTINGS", str(tmp_path / "gone.yaml"))
    with pytest.raises(SettingsError, match="does not exist"):
        shared_settings()
