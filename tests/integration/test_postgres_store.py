"""The store's tables in Postgres (the cluster profile's store) on a real server: the same graph as
the DuckDB file, the same types back, writers of different tasks side by side and writers of one
task in turn, and one clear line where the server cannot be reached."""

from __future__ import annotations

import threading
import time

import numpy as np
import pandas as pd
import pytest

from fixtures.corpus import SMALL_CORPUS, write_jsonl
from lyra_assets.execution import run_control
from lyra_resources.schema import PER_TASK_TABLES, TABLES
from lyra_resources.store.lyra_store import LyraStore, StoreError


@pytest.fixture
def pg(monkeypatch, postgres_url):
    """The store in Postgres from here on (the profile stays local: runs execute in this process)."""
    monkeypatch.setenv("LYRA_STORE", "postgres")
    monkeypatch.setenv("LYRA_POSTGRES_URL", postgres_url)
    return postgres_url


def without_times(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=[c for c in frame.columns if c.endswith("_at")]).reset_index(drop=True)


def test_a_task_run_on_the_postgres_store_gives_the_duckdb_file_s_graph(tmp_path, monkeypatch, postgres_url):
    corpus = write_jsonl(tmp_path / "corpus.jsonl", SMALL_CORPUS)
    question, options = "Does vitamin D supplementation reduce fracture risk?", {"corpus": [str(corpus)]}
    monkeypatch.delenv("LYRA_STORE", raising=False)
    local = LyraStore.at(tmp_path / "local")
    task = local.create_task(question, options)
    assert run_control.run_task(task.id, tmp_path / "local").success

    monkeypatch.setenv("LYRA_STORE", "postgres")
    monkeypatch.setenv("LYRA_POSTGRES_URL", postgres_url)
    shared = LyraStore.at(tmp_path / "shared")
    assert shared.url == postgres_url and shared.where.startswith("Postgres 127.0.0.1:")
    shared.create_task(question, options, task_id=task.id)
    assert run_control.run_task(task.id, tmp_path / "shared").success
    assert not shared.layout.database.exists()  # no DuckDB file: the tables are in Postgres

    assert (
        shared.row_counts(task.id) == local.row_counts(task.id) and local.row_counts(task.id)["nli_edges"] > 0
    )
    for table in PER_TASK_TABLES:  # row for row, value for value, in the same order and types
        theirs, ours = (
            without_times(local.read_partition(table, task.id)),
            without_times(shared.read_partition(table, task.id)),
        )
        pd.testing.assert_frame_equal(ours, theirs, check_exact=False, rtol=1e-9, obj=table)
    # the Parquet exports of the two homes hold the same rows
    for table in ("claims", "nli_edges", "task_answer"):
        pd.testing.assert_frame_equal(
            without_times(pd.read_parquet(shared.parquet_path(table, task.id))),
            without_times(pd.read_parquet(local.parquet_path(table, task.id))),
            obj=table,
        )


def test_every_column_type_comes_back_as_from_duckdb(tmp_path, monkeypatch, postgres_url):
    rows = pd.DataFrame(
        {
            "paper_id": ["p1", "p2"],
            "doi": ["10.1/x", None],
            "title": ["Ä title", "t2"],
            "abstract": [None, "a"],
            "year": [2020, None],
            "venue": ["v", "w"],
            "url": [None, None],
            "authors": [["A", "B"], []],
            "search_rank": [3, None],
            "sources": [["openalex"], None],
        }
    )
    spec = TABLES["papers"]
    frame = pd.DataFrame({c: rows[c] if c in rows else None for c in spec.data_columns})
    frames = {}
    for backend in ("duckdb", "postgres"):
        monkeypatch.setenv("LYRA_STORE", backend)
        monkeypatch.setenv("LYRA_POSTGRES_URL", postgres_url)
        store = LyraStore.at(tmp_path / backend)
        task = store.create_task("q", {"corpus": ["x"], "nested": {"a": [1, 2]}}, task_id="task_types")
        store.replace_partition("papers", task.id, frame)
        frames[backend] = store.read_partition("papers", task.id)
        assert store.get_task(task.id).options == {"corpus": ["x"], "nested": {"a": [1, 2]}}
    duck, pg = frames["duckdb"], frames["postgres"]
    assert list(pg.dtypes) == list(duck.dtypes)
    for column in duck.columns:
        for a, b in zip(pg[column], duck[column], strict=True):
            if isinstance(b, np.ndarray | list):
                assert list(a) == list(b), column
            else:
                assert (pd.isna(a) and pd.isna(b)) or a == b, column


def test_writers_of_two_tasks_do_not_wait_and_writers_of_one_task_take_turns(tmp_path, pg):
    store = LyraStore.at(tmp_path / "home")
    first, second = store.create_task("first"), store.create_task("second")
    pages = lambda prefix, n: pd.DataFrame(  # noqa: E731
        {
            "page_id": [f"{prefix}{i}" for i in range(n)],
            "paper_id": None,
            "url": None,
            "domain": "local",
            "kind": "abstract",
            "title": "t",
        }
    )
    holding, release = threading.Event(), threading.Event()

    def slow_writer(conn):  # a long transaction writing the first task's rows
        store.lock_task(conn, first.id)
        conn.execute("DELETE FROM pages WHERE task_id = ?", [first.id])
        holding.set()
        release.wait(30)

    slow = threading.Thread(target=store.transaction, args=(slow_writer,))
    slow.start()
    assert holding.wait(30)
    other_task = threading.Thread(target=store.replace_partition, args=("pages", second.id, pages("b", 3)))
    other_task.start()
    other_task.join(30)
    # another task's writer is done while the first task's transaction still holds its lock: it did not wait
    assert not other_task.is_alive() and slow.is_alive()
    same_task = threading.Thread(target=store.replace_partition, args=("pages", first.id, pages("a", 2)))
    same_task.start()
    time.sleep(1.0)
    assert same_task.is_alive()  # the same task's writer waits for the first transaction
    release.set()
    slow.join(30)
    same_task.join(30)
    assert sorted(store.read_partition("pages", first.id)["page_id"]) == ["a0", "a1"]  # whole, no mix
    assert sorted(store.read_partition("pages", second.id)["page_id"]) == ["b0", "b1", "b2"]


def test_an_unreachable_postgres_is_one_line_and_hides_the_password(tmp_path, monkeypatch, capsys):
    from bench.local_servers import free_port
    from lyra_tools.cli import main

    url = f"postgresql://lyra:s3cret@127.0.0.1:{free_port()}/lyra"
    monkeypatch.setenv("LYRA_STORE", "postgres")
    monkeypatch.setenv("LYRA_POSTGRES_URL", url)
    with pytest.raises(StoreError) as refused:
        LyraStore.at(tmp_path / "home").list_tasks()
    assert "cannot reach the store's Postgres" in str(refused.value) and "s3cret" not in str(refused.value)
    assert "\n" not in str(refused.value)
    monkeypatch.setattr("sys.argv", ["lyra", "task", "list", "--home", str(tmp_path / "home")])
    with pytest.raises(SystemExit) as ended:
        main()
    error = capsys.readouterr().err
    assert ended.value.code == 1 and error.count("\n") == 1 and "s3cret" not in error
    assert "cannot reach the store's Postgres" in error and "Connection refused" in error


def test_store_postgres_without_a_url_is_refused_in_one_line(tmp_path, monkeypatch):
    from lyra_resources.settings.pipeline import SettingsError

    monkeypatch.setenv("LYRA_STORE", "postgres")
    monkeypatch.delenv("LYRA_POSTGRES_URL", raising=False)
    monkeypatch.delenv("LYRA_PROFILE", raising=False)
    with pytest.raises(SettingsError, match="store: postgres needs a Postgres URL"):
        LyraStore.at(tmp_path / "home").list_tasks()


def test_a_home_s_duckdb_file_is_copied_into_a_fresh_postgres_store(
    tmp_path, monkeypatch, postgres_url, capsys
):
    from lyra_tools.cli import main
    from lyra_tools.feedback.apply import apply_feedback

    corpus = write_jsonl(tmp_path / "corpus.jsonl", SMALL_CORPUS)
    home = tmp_path / "home"
    monkeypatch.delenv("LYRA_STORE", raising=False)
    local = LyraStore.at(home)
    task = local.create_task(
        "Does vitamin D supplementation reduce fracture risk?", {"corpus": [str(corpus)]}
    )
    assert run_control.run_task(task.id, home).success
    claim = local.read_partition("claims", task.id)["claim_id"][0]
    apply_feedback(local, task.id, "claim_reject", {"claim_id": claim, "reason": "off topic"})
    before = {name: local.fetch_df(f"SELECT count(*) AS n FROM {name}")["n"][0] for name in TABLES}

    monkeypatch.setenv("LYRA_STORE", "postgres")
    monkeypatch.setenv("LYRA_POSTGRES_URL", postgres_url)
    monkeypatch.setattr("sys.argv", ["lyra", "store", "copy", "--home", str(home)])
    with pytest.raises(SystemExit) as copied:
        main()
    assert copied.value.code == 0 and "copied" in capsys.readouterr().out
    shared = LyraStore.at(home)
    assert {name: shared.fetch_df(f"SELECT count(*) AS n FROM {name}")["n"][0] for name in TABLES} == before
    assert shared.get_task(task.id).model_dump() == local.get_task(task.id).model_dump()
    for table in ("claims", "nli_edges", "claim_rejections", "task_answer"):
        pd.testing.assert_frame_equal(
            shared.fetch_df(f"SELECT * FROM {table} ORDER BY 2, 3"),
            local.fetch_df(f"SELECT * FROM {table} ORDER BY 2, 3"),
            obj=table,
        )
    with pytest.raises(SystemExit) as again:  # a second copy would duplicate: refused, nothing written
        main()
    error = capsys.readouterr().err
    assert again.value.code == 1 and "already holds rows" in error and error.count("\n") == 1
    assert shared.row_counts(task.id) == local.row_counts(task.id)


def test_a_postgres_store_of_an_older_lyra_gets_the_new_columns(tmp_path, pg):
    from lyra_resources.store.postgres import PostgresConnection

    old = PostgresConnection.open(pg)  # a tasks table from before `error` existed
    try:
        old.execute("CREATE SCHEMA lyra")
        old.execute(
            "CREATE TABLE lyra.tasks (id VARCHAR PRIMARY KEY, query VARCHAR NOT NULL, created_at TIMESTAMP, "
            "status VARCHAR, options TEXT, updated_at TIMESTAMP, last_run_id VARCHAR)"
        )
        old.execute("INSERT INTO lyra.tasks VALUES ('task_old', 'q', now(), 'completed', '{}', NULL, NULL)")
    finally:
        old.close()
    store = LyraStore.at(tmp_path / "home")
    assert store.require_task("task_old").error is None  # the row kept, the column added
    store.update_task("task_old", error="boom")
    assert store.require_task("task_old").error == "boom"
    assert store.row_counts("task_old")["claims"] == 0  # and every other table created
