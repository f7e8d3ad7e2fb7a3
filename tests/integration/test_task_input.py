"""Bad input is refused before a task exists: one short message, a non-zero exit, and the task
list and the Dagster instance (runs, `tasks` partitions) exactly as they were."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from typer.testing import CliRunner

from fixtures.academic_apis import closed_port
from fixtures.corpus import SMALL_CORPUS, write_jsonl
from lyra_assets.execution import run_control
from lyra_assets.execution.runs import open_instance, register_partition
from lyra_assets.partitions import TASKS_PARTITION
from lyra_resources.corpus.local_corpus import LocalCorpus
from lyra_resources.home import REPO_ROOT
from lyra_resources.settings.loading import load_settings
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli import app
from lyra_tools.mcp.server import build_server

QUESTION = "Does vitamin D supplementation reduce fracture risk?"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home that already holds one task with its partition, so "unchanged" means something."""
    home = tmp_path / "home"
    task = LyraStore.at(str(home)).create_task("an earlier question about sleep")
    with open_instance(home) as instance:
        register_partition(instance, task.id)
    return home


@pytest.fixture(autouse=True)
def fresh_settings(monkeypatch):
    monkeypatch.delenv("LYRA_SETTINGS", raising=False)
    monkeypatch.delenv("LYRA_SOURCES_LIVE", raising=False)


def state(home: Path) -> tuple:
    listed = CliRunner().invoke(app, ["task", "list", "--home", str(home)]).output
    with open_instance(home) as instance:
        runs = sorted(r.run_id for r in instance.get_runs())
        partitions = sorted(instance.get_dynamic_partitions(TASKS_PARTITION))
    return listed, runs, partitions


def assert_refused(result_output: str, exit_code: int, *expected: str) -> None:
    lines = [line for line in result_output.splitlines() if line.strip()]
    assert exit_code != 0, result_output
    assert 1 <= len(lines) <= 3, result_output
    for text in expected:
        assert text in result_output, result_output


def refused_by_cli(home: Path, *args: str, expected: tuple[str, ...]) -> None:
    before = state(home)
    result = CliRunner().invoke(app, ["run", QUESTION, *args, "--home", str(home)], catch_exceptions=False)
    assert_refused(result.output, result.exit_code, *expected)
    assert state(home) == before


def write_settings(tmp_path: Path, monkeypatch, text: str) -> Path:
    path = tmp_path / "settings.yaml"
    path.write_text(text)
    monkeypatch.setenv("LYRA_SETTINGS", str(path))
    return path


# -- corpora with no readable paper -------------------------------------------------------------------


def test_empty_corpus(home, tmp_path):
    (tmp_path / "empty.jsonl").write_text("")
    refused_by_cli(
        home, "--corpus", str(tmp_path / "empty.jsonl"), expected=("holds no readable papers", "empty")
    )


def test_binary_corpus(home, tmp_path):
    (tmp_path / "corpus.jsonl").write_bytes(bytes(range(256)) * 40)
    refused_by_cli(home, "--corpus", str(tmp_path / "corpus.jsonl"), expected=("binary",))


def test_utf16_corpus_without_a_bom(home, tmp_path):
    text = "".join(json.dumps(r) + "\n" for r in SMALL_CORPUS)
    (tmp_path / "corpus.jsonl").write_bytes(text.encode("utf-16-le"))
    refused_by_cli(
        home, "--corpus", str(tmp_path / "corpus.jsonl"), expected=("UTF-16 without a byte-order mark",)
    )


def test_csv_corpus(home, tmp_path):
    (tmp_path / "papers.csv").write_text("title,abstract\nVitamin D,Fractures fell\n")
    refused_by_cli(
        home, "--corpus", str(tmp_path / "papers.csv"), expected=("unsupported corpus file", "*.jsonl")
    )


def test_a_path_longer_than_the_os_allows(home):
    refused_by_cli(home, "--corpus", "c" * 100_000, expected=("--corpus",))


def test_a_folder_whose_only_corpus_file_is_a_symlink_out_of_it(home, tmp_path, small_corpus):
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "outside.jsonl").symlink_to(small_corpus)
    refused_by_cli(home, "--corpus", str(folder), expected=("outside the corpus folder",))


def test_a_folder_with_too_many_corpus_files(home, tmp_path, monkeypatch):
    folder = tmp_path / "folder"
    folder.mkdir()
    for i in range(4):
        write_jsonl(folder / f"part{i}.jsonl", SMALL_CORPUS[i : i + 1])
    write_settings(tmp_path, monkeypatch, "corpus_files:\n  max_files: 3\n")
    refused_by_cli(
        home, "--corpus", str(folder), expected=("more than 3 corpus files", "corpus_files.max_files")
    )


# -- options, settings, sources --------------------------------------------------------------------------


def test_negative_papers(home, small_corpus):
    refused_by_cli(
        home, "--corpus", str(small_corpus), "--papers", "-1", expected=("--papers must be at least 1",)
    )


def test_no_network_and_no_corpus(home, lyra_settings, monkeypatch):
    lyra_settings()
    monkeypatch.setenv("LYRA_S2_BASE_URL", f"http://127.0.0.1:{closed_port()}/graph/v1")
    monkeypatch.setenv("LYRA_OPENALEX_BASE_URL", f"http://127.0.0.1:{closed_port()}")
    refused_by_cli(home, expected=("no network", "Semantic Scholar", "OpenAlex", "--corpus"))


def test_live_sources_off_and_no_corpus(home, monkeypatch):
    monkeypatch.setenv("LYRA_SOURCES_LIVE", "off")
    refused_by_cli(home, expected=("no literature source",))


def test_broken_settings_file(home, tmp_path, monkeypatch, small_corpus):
    path = write_settings(tmp_path, monkeypatch, "search:\n  papers_per_source: [1,\n")
    refused_by_cli(home, "--corpus", str(small_corpus), expected=(str(path), "not valid YAML", "line"))
    write_settings(tmp_path, monkeypatch, "search:\n  papers_per_source: 0\nsources:\n  live: maybe\n")
    refused_by_cli(
        home,
        "--corpus",
        str(small_corpus),
        expected=("search.papers_per_source must be at least 1 (got 0)", "sources.live must be one of"),
    )


def test_missing_settings_file(home, tmp_path, monkeypatch, small_corpus):
    monkeypatch.setenv("LYRA_SETTINGS", str(tmp_path / "nowhere.yaml"))
    refused_by_cli(
        home, "--corpus", str(small_corpus), expected=("nowhere.yaml does not exist", "LYRA_SETTINGS")
    )


def test_broken_settings_through_the_installed_entry_point(home, tmp_path):
    """The real process: no traceback, one line, for a command that reads the settings at start."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("models: {embedder: [}\n")
    env = {**os.environ, "LYRA_SETTINGS": str(bad), "PYTHONPATH": str(REPO_ROOT)}
    before = state(home)
    for args in (["run", QUESTION, "--home", str(home)], ["models", "list", "--home", str(home)]):
        proc = subprocess.run(
            [sys.executable, "-m", "lyra_tools.cli", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            cwd=REPO_ROOT,
        )
        assert_refused(proc.stdout + proc.stderr, proc.returncode, "not valid YAML")
        assert "Traceback" not in proc.stderr
    assert state(home) == before


def test_task_run_checks_the_stored_input_again(home, tmp_path):
    corpus = write_jsonl(tmp_path / "gone.jsonl", SMALL_CORPUS)
    task = LyraStore.at(str(home)).create_task(QUESTION, {"corpus": [str(corpus)]})
    corpus.unlink()
    before = state(home)
    result = CliRunner().invoke(app, ["task", "run", task.id, "--home", str(home)])
    assert_refused(result.output, result.exit_code, "does not exist", "gone.jsonl")
    assert state(home) == before and LyraStore.at(str(home)).require_task(task.id).status == "created"


# -- MCP create_task -------------------------------------------------------------------------------------


def test_mcp_create_task_refuses_a_one_megabyte_path_and_an_empty_corpus(home, tmp_path):
    empty_file = Path(home) / "corpora" / "empty.jsonl"  # under the MCP corpus roots
    empty_file.parent.mkdir(parents=True)
    empty_file.write_text("")
    server = build_server(home, launcher=lambda task_id, root: pytest.fail("nothing may be launched"))
    before = state(home)

    async def calls():
        async with Client(server, read_timeout_seconds=60) as client:
            return [
                await client.call_tool("create_task", {"query": QUESTION, "options": {"corpus": [path]}})
                for path in ("/" + "x" * 1_000_000, str(empty_file))
            ]

    too_long, empty = anyio.run(calls)
    assert too_long.is_error and empty.is_error
    assert "options.corpus is 1,000,001 characters long" in too_long.content[0].text
    assert "holds no readable papers" in empty.content[0].text
    assert all(len(r.content[0].text) < 500 and "\n" not in r.content[0].text for r in (too_long, empty))
    assert state(home) == before


# -- what is read, and how -------------------------------------------------------------------------------


def test_latin1_corpus_loads_every_record_and_reports_the_repaired_lines(tmp_path):
    rows = [
        {
            "doc_id": i,
            "title": f"Vitamine D et fractures chez les âgés, étude {i}",
            "abstract": ["Les résultats à Zürich: moins de fractures (p < 0,05)."],
        }
        for i in range(5)
    ]
    path = tmp_path / "latin1.jsonl"
    path.write_bytes("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("latin-1"))
    corpus = LocalCorpus.open(path)
    assert len(corpus) == 5 and corpus.issues == []
    assert corpus.records[0].title == "Vitamine D et fractures chez les âgés, étude 0"
    assert corpus.repairs == {str(path.resolve()): [1, 2, 3, 4, 5]}
    from lyra_resources.task_input import check_task_input

    checked = check_task_input(QUESTION, {"corpus": [str(path)]}, tmp_path / "home")
    assert checked.notes == [
        f"5 line(s) of corpus {path.resolve()} were not UTF-8 and were read as "
        f"Windows-1252/Latin-1: {path.resolve()} lines 1, 2, 3, 4, 5"
    ]


def test_utf16_with_a_bom_and_utf8_with_a_bom_load(tmp_path):
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in SMALL_CORPUS)
    for name, data in (("u16.jsonl", text.encode("utf-16")), ("sig.jsonl", text.encode("utf-8-sig"))):
        (tmp_path / name).write_bytes(data)
        corpus = LocalCorpus.open(tmp_path / name)
        assert len(corpus) == len(SMALL_CORPUS) and corpus.issues == [] and corpus.repairs == {}


def test_a_folder_reads_inside_files_and_reports_what_it_left_out(tmp_path, small_corpus, monkeypatch):
    folder = tmp_path / "folder"
    (folder / "sub").mkdir(parents=True)
    write_jsonl(folder / "sub" / "inside.jsonl", SMALL_CORPUS[:2])
    (folder / "link-inside.jsonl").symlink_to(folder / "sub" / "inside.jsonl")  # the same file: read once
    (folder / "link-outside.jsonl").symlink_to(small_corpus)
    (folder / "linked-dir").symlink_to(tmp_path, target_is_directory=True)
    write_jsonl(folder / "big.jsonl", SMALL_CORPUS * 200)
    (folder / "README.md").write_text("not a corpus file")
    write_settings(tmp_path, monkeypatch, "corpus_files:\n  max_file_mb: 0.01\n")
    corpus = LocalCorpus.open(folder, limits=load_settings().corpus_files)
    assert corpus.files == [(folder / "sub" / "inside.jsonl").resolve()] and len(corpus) == 2
    reasons = {Path(i.location.rsplit(":", 1)[0]).name: i.reason for i in corpus.issues}
    assert "outside the corpus folder" in reasons["link-outside.jsonl"]
    assert (
        "over the 0.01 MB limit" in reasons["big.jsonl"]
        and "corpus_files.max_file_mb" in reasons["big.jsonl"]
    )
    assert "not followed" in reasons["linked-dir"]
    from lyra_resources.task_input import check_task_input

    checked = check_task_input(QUESTION, {"corpus": [str(folder)]}, tmp_path / "home")
    assert len(checked.notes) == 1 and "3 file(s) of corpus" in checked.notes[0]


def test_ranking_an_empty_fragment_table_keeps_its_column_types():
    import numpy as np
    import pandas as pd

    from lyra_assets.ranking import ranking_frame
    from lyra_core.ranking import rank_candidates

    scores = rank_candidates([], np.zeros(3), lambda idx: np.zeros((0, 3)), None)
    frame = ranking_frame(scores, [])
    fragments = pd.DataFrame(
        {"fragment_id": pd.Series([], dtype=object), "text": pd.Series([], dtype=object)}
    )
    assert frame.merge(fragments, on="fragment_id").empty
    assert frame["fragment_id"].dtype == object and frame["final_rank"].dtype == "Int64"


@pytest.mark.slow
def test_a_question_no_paper_matches_completes_with_empty_tables(lyra_home, small_corpus):
    task = LyraStore.at(str(lyra_home)).create_task(
        "quantum chromodynamics lattice gauge", {"corpus": [str(small_corpus)]}
    )
    outcome = run_control.run_task(task.id, lyra_home)
    assert outcome.success, outcome.error
    counts = LyraStore.at(str(lyra_home)).row_counts(task.id)
    assert counts["papers"] == counts["fragment_ranking"] == counts["claims"] == 0


def test_a_one_word_question_gets_a_hint_and_is_still_checked(tmp_path, small_corpus):
    from lyra_resources.task_input import check_task_input

    vague = check_task_input("cancer", {"corpus": [str(small_corpus)]}, tmp_path / "h")
    assert vague.query == "cancer" and len(vague.notes) == 1
    assert vague.notes[0].startswith("the question has one content word ('cancer'), too vague to judge")
    assert (
        check_task_input("What is it?", {"corpus": [str(small_corpus)]}, tmp_path / "h")
        .notes[0]
        .startswith("the question has no content word")
    )
    assert (
        check_task_input(
            "Does vitamin D reduce fracture risk?", {"corpus": [str(small_corpus)]}, tmp_path / "h"
        ).notes
        == []
    )
