"""Fixtures for every test, in tests/unit and tests/integration alike: a temporary Lyra home, a
small corpus the tests write, the real data, the store under test, and the shared fixtures of the
``fixtures`` package (the evidence graph and its answered home, the cluster profile, the session's Redis)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# The helpers' asserts report their values, as the tests' own do.
pytest.register_assert_rewrite("fixtures")

# The pytest fixtures defined in the fixtures package, for every test that names them.
pytest_plugins = ["fixtures.graphs", "fixtures.answers", "fixtures.cluster", "fixtures.redis_server"]

from fixtures.corpus import SMALL_CORPUS, write_jsonl  # noqa: E402 (after the rewrite hook)
from fixtures.paths import SHARED_DATA  # noqa: E402
from fixtures.stores import STORE_UNDER_TEST_ENV  # noqa: E402

# Worker processes when ``LYRA_TEST_WORKERS`` is unset: the README's command and CI run on 2 cores.
DEFAULT_WORKERS = "2"


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Tests run in 2 worker processes (pytest-xdist's ``-n``), each test file on one worker and the
    files that start servers and workers on one worker between them (tests/fixtures/scheduling.py).
    ``LYRA_TEST_WORKERS`` sets the number (``auto``: one per core); ``0``, ``-n 0`` or ``-p no:xdist``
    run the suite in one process; a ``-n`` or ``--dist`` on the command line wins.

    Only where the tests named span files (the whole suite, a folder, two files or more): one file
    would run on one worker anyway, after the workers' start. Set here rather than in ``addopts`` so
    that ``-p no:xdist`` still runs the suite in one process. Runs before xdist's own hook (tryfirst),
    and not on the workers, which xdist starts with neither option set."""
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return
    workers = os.environ.get("LYRA_TEST_WORKERS", "") or DEFAULT_WORKERS
    if workers != "auto" and not workers.isdigit():
        raise pytest.UsageError(f"LYRA_TEST_WORKERS must be a number of workers or auto, not {workers!r}")
    if config.option.numprocesses is None and not config.option.collectonly and spans_files(config):
        config.option.numprocesses = workers if workers == "auto" else int(workers)
    if config.option.numprocesses and config.option.dist == "no" and not config.option.distload:
        config.option.dist = "loadfile"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``loadfile``, with the files that start servers and workers handed out as one unit."""
    if config.getvalue("dist") != "loadfile":
        return None
    from fixtures.scheduling import FilesAndOneAtATime

    return FilesAndOneAtATime(config, log)


def spans_files(config: pytest.Config) -> bool:
    """Whether the tests named on the command line (or the configured test paths) may come from more
    than one file: a folder among them, or two files or more."""
    paths = {config.invocation_params.dir / arg.split("::")[0] for arg in config.args}
    return len(paths) > 1 or any(path.is_dir() for path in paths)


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
    """Semantic Scholar and OpenAlex served from recorded real records (tests/fixtures/academic_apis.py)."""
    from fixtures.academic_apis import serve_fake_apis

    yield from serve_fake_apis(shared_data, monkeypatch)


@pytest.fixture
def lyra_settings(tmp_path, monkeypatch):
    """Write settings for one test, merged over fast defaults (tests/fixtures/academic_apis.py)."""
    from fixtures.academic_apis import settings_writer

    yield from settings_writer(tmp_path, monkeypatch)


@pytest.fixture(scope="session")
def postgres_server():
    """A real Postgres on 127.0.0.1 for the whole session (tests/fixtures/postgres_server.py); skips without it."""
    from fixtures.postgres_server import start_postgres

    yield from start_postgres()


@pytest.fixture
def postgres_url(postgres_server) -> str:
    """The URL of a new, empty database on the session's Postgres."""
    return postgres_server.create_database()


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
