"""A command reads the settings file once and hands what it read to the store, the Dagster instance
and the run it opens: no store opening reads the file again."""

import pytest
from typer.testing import CliRunner

from lyra_resources.settings import loading
from lyra_resources.settings.services import ClusterSettings
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli import app


@pytest.fixture
def settings_reads(tmp_path, monkeypatch) -> list[str]:
    """Every read of the settings file, by path, from here on."""
    path = tmp_path / "settings.yaml"
    path.write_text("search:\n  papers_per_source: 7\n", encoding="utf-8")
    monkeypatch.setenv("LYRA_SETTINGS", str(path))
    reads: list[str] = []
    parse = loading._parsed_yaml.__wrapped__  # past its cache: every read counts

    def counted(name: str, size: int, mtime_ns: int):
        reads.append(name)
        return parse(name, size, mtime_ns)

    monkeypatch.setattr(loading, "_parsed_yaml", counted)
    return reads


def test_a_command_reads_the_settings_once_and_hands_them_to_its_store_and_instance(tmp_path, settings_reads):
    home = tmp_path / "home"
    task = LyraStore.for_settings(home, ClusterSettings().effective()).create_task("Does X reduce Y?", {})
    for command in (["task", "stop", task.id], ["task", "delete", task.id, "--yes"], ["task", "list"]):
        settings_reads.clear()
        done = CliRunner().invoke(app, [*command, "--home", str(home)], catch_exceptions=False)
        assert done.exit_code == 0, done.output
        assert len(settings_reads) == 1, command  # each command reads them anew, once


def test_a_store_opened_for_settings_reads_no_file(tmp_path, settings_reads):
    store = LyraStore.for_settings(tmp_path / "home", ClusterSettings().effective())
    assert store.list_tasks() == [] and store.url == ""
    assert settings_reads == []
    LyraStore(home=str(tmp_path / "home")).list_tasks()  # opened outside a command: reads them itself
    assert len(settings_reads) == 1
