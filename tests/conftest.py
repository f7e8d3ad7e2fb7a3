"""Shared fixtures: a temporary Lyra home, a small corpus the tests write, and the real data."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

# A small SciFact-shaped corpus: two topics, so searches have clear right answers.
SMALL_CORPUS = [
    {"doc_id": 1, "title": "Vitamin D supplementation and fracture risk in older adults",
     "abstract": ["We pooled 11 randomized trials of vitamin D supplementation.",
                  "High-dose vitamin D reduced hip fracture risk by 30% (RR 0.70, 95% CI 0.58-0.86).",
                  "Low doses showed no significant effect."]},
    {"doc_id": 2, "title": "Calcium and vitamin D in postmenopausal women",
     "abstract": ["In this trial of 36,282 women, calcium with vitamin D did not reduce hip fractures.",
                  "Kidney stones were more frequent in the treatment group."]},
    {"doc_id": 3, "title": "Sleep deprivation impairs memory consolidation",
     "abstract": ["Participants deprived of sleep recalled fewer word pairs.",
                  "Hippocampal activity was reduced after sleep loss."]},
    {"doc_id": 4, "title": "Exercise and bone mineral density",
     "abstract": ["Resistance training increased lumbar spine bone mineral density.",
                  "Fracture outcomes were not measured."]},
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture(autouse=True)
def no_leftover_dagster_instance():
    """Each test starts and ends with no current Dagster definitions-state storage.

    `DagsterInstance.__exit__` (Dagster 1.13) disposes an instance a test opened with `with`
    (e.g. `DagsterInstance.ephemeral()`) but leaves it set in a context variable; a later test that
    builds definitions would then resolve the dead instance."""
    from dagster._core.storage.defs_state.base import set_defs_state_storage

    with set_defs_state_storage(None):
        yield


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "corpus.jsonl", SMALL_CORPUS)


def agent_corpus(home: Path, corpus: Path) -> Path:
    """``corpus`` copied under ``home``'s ``corpora/``, where an MCP agent may name it (mcp.corpus_roots)."""
    target = home / "corpora" / corpus.name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(corpus.read_bytes())
    return target


@pytest.fixture
def lyra_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("LYRA_HOME", str(home))
    return home


@pytest.fixture
def shared_data() -> Path:
    """The real test data beside the repository; tests using it skip where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real test data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture
def fake_apis(shared_data, monkeypatch):
    """Semantic Scholar and OpenAlex served from recorded real records (tests/test_academic_sources.py)."""
    from test_academic_sources import serve_fake_apis

    yield from serve_fake_apis(shared_data, monkeypatch)


@pytest.fixture
def lyra_settings(tmp_path, monkeypatch):
    """Write settings for one test, merged over fast defaults (tests/test_academic_sources.py)."""
    from test_academic_sources import settings_writer

    yield from settings_writer(tmp_path, monkeypatch)


@pytest.fixture(scope="session")
def postgres_server():
    """A real Postgres on 127.0.0.1 for the whole session (tests/postgres_server.py); skips without it."""
    from postgres_server import start_postgres

    yield from start_postgres()


@pytest.fixture
def postgres_url(postgres_server) -> str:
    """The URL of a new, empty database on the session's Postgres."""
    return postgres_server.create_database()


STORE_UNDER_TEST_ENV = "LYRA_TEST_STORE"


@pytest.fixture(autouse=True)
def store_under_test(request, monkeypatch):
    """``LYRA_TEST_STORE=postgres`` runs every test with the store's tables in Postgres (a fresh
    database per test on the session's server), the backend of the cluster profile; unset, the
    store is the home's DuckDB file, as on a single machine."""
    if os.environ.get(STORE_UNDER_TEST_ENV, "duckdb") != "postgres":
        yield
        return
    if request.node.get_closest_marker("duckdb_file"):
        pytest.skip("about the home's DuckDB file itself (its lock, its file), not the Postgres store")
    url = request.getfixturevalue("postgres_url")
    monkeypatch.setenv("LYRA_STORE", "postgres")
    monkeypatch.setenv("LYRA_POSTGRES_URL", url)
    yield


def testing_postgres_store() -> bool:
    return os.environ.get(STORE_UNDER_TEST_ENV, "duckdb") == "postgres"


def template_store(request, home: Path):
    """A store for a template home that several tests copy (``copy_store``); under
    ``LYRA_TEST_STORE=postgres`` its tables go to a database of their own."""
    from lyra_resources.store import LyraStore

    store = LyraStore.at(home)
    if testing_postgres_store():
        store._url = request.getfixturevalue("postgres_server").create_database("lyra_template")
    return store


def copy_store(template, home: Path):
    """A copy of ``template``'s home at ``home`` (its tables too), for one test to change."""
    import shutil

    from lyra_resources.store import LyraStore

    shutil.copytree(template.layout.root, home, symlinks=True)  # the Parquet links stay links
    if testing_postgres_store():  # the test's own database becomes a copy of the template's
        import psycopg2
        from urllib.parse import urlsplit, urlunsplit

        target = urlsplit(os.environ["LYRA_POSTGRES_URL"])
        source = urlsplit(template.url).path.lstrip("/")
        conn = psycopg2.connect(urlunsplit(target._replace(path="/postgres")))
        conn.autocommit = True
        try:
            with conn.cursor() as cursor:
                cursor.execute(f"DROP DATABASE {target.path.lstrip('/')}")
                cursor.execute(f"CREATE DATABASE {target.path.lstrip('/')} TEMPLATE {source}")
        finally:
            conn.close()
    return LyraStore.at(home)
