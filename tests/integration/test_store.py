import subprocess
import sys
import textwrap
import time

import duckdb
import pandas as pd
import psycopg2
import pytest

from lyra_resources.store.generations import open_generation
from lyra_resources.store.lyra_store import LyraStore, StoreError

DATABASE_ERRORS = (duckdb.Error, psycopg2.Error)  # the store's two backends (LYRA_TEST_STORE)


def frag_rows(prefix: str, n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "fragment_id": [f"{prefix}{i}" for i in range(n)],
            "page_id": ["pg"] * n,
            "position": list(range(n)),
            "text": [f"text {i}" for i in range(n)],
            "sections": [[] for _ in range(n)],
        }
    )


@pytest.fixture
def store(tmp_path) -> LyraStore:
    return LyraStore.at(tmp_path / "home")


def parquet_rows(store: LyraStore, table: str, task_id: str) -> pd.DataFrame:
    return duckdb.sql(f"SELECT * FROM read_parquet('{store.parquet_path(table, task_id)}')").df()


def test_replace_is_idempotent_and_exports_parquet(store):
    task = store.create_task("q")
    assert store.replace_partition("fragments", task.id, frag_rows("a", 3)) == 3
    store.replace_partition("fragments", task.id, frag_rows("a", 3))
    rows = store.read_partition("fragments", task.id)
    assert len(rows) == 3 and rows["fragment_id"].is_unique
    exported = parquet_rows(store, "fragments", task.id)
    assert sorted(exported["fragment_id"]) == sorted(rows["fragment_id"])
    # hive layout: the task id lives in the folder name, readable as a column
    hive = duckdb.sql(
        f"SELECT DISTINCT task_id FROM read_parquet('{store.layout.parquet}/fragments/*/*.parquet', "
        "hive_partitioning=true)"
    ).fetchall()
    assert hive == [(task.id,)]


def test_tasks_never_see_each_others_rows(store):
    a, b = store.create_task("first question"), store.create_task("second question")
    store.replace_partition("fragments", a.id, frag_rows("a", 2))
    store.replace_partition("fragments", b.id, frag_rows("b", 5))
    store.replace_partition("fragments", a.id, frag_rows("a", 1))
    assert len(store.read_partition("fragments", a.id)) == 1
    assert len(store.read_partition("fragments", b.id)) == 5
    removed = store.delete_task(a.id)
    assert removed["fragments"] == 1
    assert store.get_task(a.id) is None and len(store.read_partition("fragments", b.id)) == 5
    assert not store.parquet_path("fragments", a.id).exists()
    assert store.parquet_path("fragments", b.id).exists()


def test_empty_replacement_clears_rows_and_keeps_schema(store):
    task = store.create_task("q")
    store.replace_partition("fragments", task.id, frag_rows("a", 2))
    store.replace_partition("fragments", task.id, frag_rows("a", 0))
    assert store.read_partition("fragments", task.id).empty
    exported = parquet_rows(store, "fragments", task.id)
    assert exported.empty
    assert list(exported.columns) == [
        "fragment_id",
        "page_id",
        "position",
        "text",
        "sections",
        "task_id",
    ]  # task_id from the hive path


def test_a_failed_write_leaves_the_previous_rows(store, monkeypatch):
    task = store.create_task("q")
    store.replace_partition("fragments", task.id, frag_rows("old", 2))
    with pytest.raises(StoreError, match="missing"):
        store.replace_partition("fragments", task.id, frag_rows("new", 2).drop(columns=["text"]))
    # a failure inside the transaction, after the delete: rolled back
    bad = frag_rows("new", 2)
    bad["position"] = ["not", "ints"]
    with pytest.raises(DATABASE_ERRORS):
        store.replace_partition("fragments", task.id, bad)
    assert sorted(store.read_partition("fragments", task.id)["fragment_id"]) == ["old0", "old1"]
    assert sorted(parquet_rows(store, "fragments", task.id)["fragment_id"]) == ["old0", "old1"]
    assert not list(store.parquet_path("fragments", task.id).parent.glob(".tmp-*"))


def page_rows(prefix: str, n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "page_id": [f"{prefix}{i}" for i in range(n)],
            "paper_id": None,
            "url": None,
            "domain": "local",
            "kind": "abstract",
            "title": [f"title {i}" for i in range(n)],
        }
    )


class InsertFailed(RuntimeError):
    pass


class FailingInsert:
    """A connection that fails on the INSERT into one table, inside the store's transaction."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, table: str):
        self.conn, self.table = conn, table

    def execute(self, sql: str, *args):
        if sql.startswith(f"INSERT INTO {self.table} "):
            raise InsertFailed(f"cannot insert into {self.table}")
        return self.conn.execute(sql, *args)

    def insert_rows(self, table: str, frame):  # the Postgres store's insert
        if table == self.table:
            raise InsertFailed(f"cannot insert into {self.table}")
        return self.conn.insert_rows(table, frame)

    def __getattr__(self, name: str):
        return getattr(self.conn, name)


def fail_inserts_into(monkeypatch, table: str) -> None:
    real_open = LyraStore._open
    monkeypatch.setattr(LyraStore, "_open", lambda self: FailingInsert(real_open(self), table))


def test_two_tables_of_a_task_are_replaced_together(store, monkeypatch):
    task = store.create_task("q")
    counts = store.replace_partitions(
        task.id, {"fragments": frag_rows("old", 2), "pages": page_rows("oldpg", 1)}
    )
    assert counts == {"fragments": 2, "pages": 1}
    assert store.replace_partitions(
        task.id, {"fragments": frag_rows("new", 3), "pages": page_rows("newpg", 2)}
    ) == {"fragments": 3, "pages": 2}
    assert sorted(store.read_partition("fragments", task.id)["fragment_id"]) == ["new0", "new1", "new2"]
    assert sorted(parquet_rows(store, "pages", task.id)["page_id"]) == ["newpg0", "newpg1"]

    # rows that do not match their table: refused before anything is written
    with pytest.raises(StoreError, match="missing"):
        store.replace_partitions(
            task.id, {"fragments": frag_rows("bad", 1), "pages": page_rows("bad", 1).drop(columns=["title"])}
        )
    # a failure inside the transaction, after the first table's rows were swapped: both rolled back
    with monkeypatch.context() as patch:
        fail_inserts_into(patch, "pages")
        with pytest.raises(InsertFailed, match="cannot insert into pages"):
            store.replace_partitions(
                task.id, {"fragments": frag_rows("bad", 1), "pages": page_rows("bad", 1)}
            )
    for table, column, kept in (
        ("fragments", "fragment_id", ["new0", "new1", "new2"]),
        ("pages", "page_id", ["newpg0", "newpg1"]),
    ):
        assert sorted(store.read_partition(table, task.id)[column]) == kept
        assert sorted(parquet_rows(store, table, task.id)[column]) == kept
        assert not list(store.parquet_path(table, task.id).parent.glob(".tmp-*"))


def test_a_staging_run_replaces_two_tables_in_one_transaction(tmp_path, monkeypatch):
    store = LyraStore.at(tmp_path / "home")
    task = store.create_task("q")
    store.replace_partitions(task.id, {"fragments": frag_rows("old", 1), "pages": page_rows("oldpg", 1)})
    run = LyraStore.at(tmp_path / "home")
    open_generation(run, task.id, "run-1")
    run.replace_partitions(task.id, {"fragments": frag_rows("new", 2), "pages": page_rows("newpg", 2)})
    with monkeypatch.context() as patch:
        fail_inserts_into(patch, "stage_pages")
        with pytest.raises(InsertFailed, match="cannot insert into stage_pages"):
            run.replace_partitions(task.id, {"fragments": frag_rows("bad", 1), "pages": page_rows("bad", 1)})
    assert sorted(run.read_partition("fragments", task.id)["fragment_id"]) == [
        "new0",
        "new1",
    ]  # the run's rows
    assert sorted(run.read_partition("pages", task.id)["page_id"]) == ["newpg0", "newpg1"]
    assert list(store.read_partition("pages", task.id)["page_id"]) == [
        "oldpg0"
    ]  # readers: the published ones
    with pytest.raises(StoreError, match="cannot write rows of task_other"):
        run.replace_partitions("task_other", {"pages": page_rows("x", 1)})


def test_unknown_table_and_task_are_clear_errors(store):
    with pytest.raises(StoreError, match="unknown table 'claimz'"):
        store.replace_partition("claimz", "t", frag_rows("a", 1))
    with pytest.raises(StoreError, match="no task 'task_nope'"):
        store.require_task("task_nope")
    with pytest.raises(StoreError, match="non-empty"):
        store.create_task("   ")


@pytest.mark.duckdb_file
def test_writes_wait_for_another_process_holding_the_lock(store):
    task = store.create_task("q")
    # A real second process opens the database and holds it for a moment, as a pipeline run would.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        import duckdb, time, sys
        con = duckdb.connect({str(store.layout.database)!r})
        con.execute("INSERT INTO fragments VALUES ('{task.id}', 'other', 'pg', 0, 'x', [])")
        print("locked", flush=True)
        time.sleep(1.5)
        con.close()
    """),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "locked"
    started = time.monotonic()
    store.replace_partition("fragments", task.id, frag_rows("mine", 2))
    waited = time.monotonic() - started
    assert holder.wait(timeout=30) == 0
    assert waited > 0.5  # it really had to wait for the lock, and then succeeded
    assert sorted(store.read_partition("fragments", task.id)["fragment_id"]) == ["mine0", "mine1"]


def test_task_status_updates(store):
    task = store.create_task("q", {"corpus": ["x"]})
    store.update_task(task.id, status="running", last_run_id="r1")
    got = store.require_task(task.id)
    assert (got.status, got.last_run_id, got.options) == ("running", "r1", {"corpus": ["x"]})
    with pytest.raises(StoreError, match="unknown task status"):
        store.update_task(task.id, status="exploded")
    assert [t.id for t in store.list_tasks()] == [task.id]


@pytest.mark.duckdb_file
def test_a_database_of_an_older_lyra_gets_the_new_columns(tmp_path):
    home = tmp_path / "old"
    home.mkdir()
    old = duckdb.connect(str(home / "lyra.duckdb"))  # a tasks table from before `error` existed
    old.execute(
        "CREATE TABLE tasks (id VARCHAR PRIMARY KEY, query VARCHAR NOT NULL, created_at TIMESTAMP, "
        "status VARCHAR, options JSON, updated_at TIMESTAMP, last_run_id VARCHAR)"
    )
    old.execute("INSERT INTO tasks VALUES ('task_old', 'q', now()::TIMESTAMP, 'completed', '{}', NULL, NULL)")
    old.close()
    store = LyraStore.at(home)
    assert store.require_task("task_old").error is None  # the row kept, the column added
    store.update_task("task_old", error="boom")
    assert store.require_task("task_old").error == "boom"


def test_parquet_files_of_a_home_from_before_generations_become_links_to_the_current_one(store):
    task = store.create_task("q")
    old_folder = store.layout.parquet / "fragments" / f"task_id={task.id}"  # the layout an older Lyra wrote
    old_folder.mkdir(parents=True)
    duckdb.sql(f"COPY (SELECT 'stale' AS fragment_id) TO '{old_folder / 'data.parquet'}' (FORMAT parquet)")
    store.replace_partition("fragments", task.id, frag_rows("new", 2))
    assert old_folder.is_symlink()
    hive = duckdb.sql(
        f"SELECT fragment_id, task_id FROM read_parquet('{store.layout.parquet}/fragments/*/*.parquet', "
        "hive_partitioning = true) ORDER BY 1"
    ).fetchall()
    assert hive == [("new0", task.id), ("new1", task.id)]
    folder = store.layout.parquet / "_generations" / task.id
    first = (folder / "current").resolve()
    store.replace_partition("fragments", task.id, frag_rows("newer", 1))
    second = (folder / "current").resolve()
    assert second != first and not first.exists()  # the previous generation removed once replaced
    assert {p.name for p in folder.iterdir()} == {"current", ".lock", second.name}  # nothing left aside
    assert sorted(parquet_rows(store, "fragments", task.id)["fragment_id"]) == ["newer0"]
    store.delete_task(task.id)
    assert not folder.exists() and not old_folder.is_symlink() and not old_folder.exists()


@pytest.mark.duckdb_file
def test_a_home_copied_without_its_links_is_written_again(tmp_path):
    """`cp -r` (or copytree) turns the Parquet links into folders: the next write replaces them."""
    import shutil

    first = LyraStore.at(tmp_path / "a")
    task = first.create_task("q")
    first.replace_partition("fragments", task.id, frag_rows("old", 2))
    shutil.copytree(first.layout.root, tmp_path / "b")  # links followed: real folders in the copy
    copy = LyraStore.at(tmp_path / "b")
    assert not (copy.layout.parquet / "_generations" / task.id / "current").is_symlink()
    copy.replace_partition("fragments", task.id, frag_rows("new", 1))
    assert (copy.layout.parquet / "_generations" / task.id / "current").is_symlink()
    assert sorted(parquet_rows(copy, "fragments", task.id)["fragment_id"]) == ["new0"]
