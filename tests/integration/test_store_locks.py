"""One lock classifier and one retry policy for every process: real DuckDB conflicts (a file held by
another process, two transactions writing one row, a file open twice in this process) are waited
out, real errors are not, and the MCP server's attached store waits through the same policy."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
import duckdb
import pytest
from mcp import Client

from fixtures.tables import held_by_another_process
from lyra_resources.store.faults import is_read_only_refusal, store_fault
from lyra_resources.store.locks import STORE_RETRY, LockWaits, RetryPolicy, is_lock_conflict, lock_waits
from lyra_resources.store.lyra_store import LyraStore, StoreBusyError
from lyra_tools.mcp.server import build_server
from lyra_tools.mcp.server_store import ServerStore

pytestmark = pytest.mark.duckdb_file  # the DuckDB file lock and its retries


@pytest.fixture
def store(tmp_path) -> LyraStore:
    store = LyraStore.at(tmp_path / "home")
    store.create_task("is vitamin D good for bones?")  # creates the schema before anyone holds the file
    return store


@pytest.fixture
def attempts(monkeypatch) -> list[tuple[str, int]]:
    """Each call of the shared policy as (what it waited for, attempts it made)."""
    calls: list[tuple[str, int]] = []
    real_run = RetryPolicy.run

    def counting_run(self, attempt, *, timeout_s, what):
        n = 0

        def counted():
            nonlocal n
            n += 1
            return attempt()

        try:
            return real_run(self, counted, timeout_s=timeout_s, what=what)
        finally:
            calls.append((str(what), n))

    monkeypatch.setattr(RetryPolicy, "run", counting_run)
    return calls


def test_real_conflicts_are_lock_conflicts_and_real_errors_are_not(store):
    database = str(store.layout.database)
    with held_by_another_process(store.layout.database, 1.0), pytest.raises(duckdb.Error) as held:
        duckdb.connect(database)
    assert is_lock_conflict(held.value)

    with duckdb.connect(database) as a, duckdb.connect(database) as b:  # one instance, two connections
        a.execute("BEGIN TRANSACTION")
        b.execute("BEGIN TRANSACTION")
        a.execute("UPDATE tasks SET status = 'running'")
        with pytest.raises(duckdb.Error) as conflict:
            b.execute("UPDATE tasks SET status = 'failed'")
        assert is_lock_conflict(conflict.value)
        with pytest.raises(duckdb.Error) as missing:
            a.execute("SELECT * FROM blocked_domainz")  # an error whose text says "lock" but is real
        assert not is_lock_conflict(missing.value)

        other_instance = duckdb.connect(":memory:")  # the file is open in this process already
        with pytest.raises(duckdb.Error) as attached:
            other_instance.execute(f"ATTACH '{database}' AS lyra")
        other_instance.close()
    assert is_lock_conflict(attached.value)
    assert not is_lock_conflict(ValueError("lock"))


@pytest.fixture
def unwritable() -> Iterator[Callable[[Path], str]]:
    """Makes a file or folder unwritable for this process, as the file system refuses it: immutable
    (``chattr +i``: EPERM, even for root) where this runs as root, else no write permission (EACCES).
    Returns the OS's words for the refusal; the flag or mode is taken off after the test."""
    undo: list[list[str]] = []

    def make(path: Path) -> str:
        if os.geteuid() != 0:
            path.chmod(0o555 if path.is_dir() else 0o444)
            undo.append(["chmod", "u+w", str(path)])
            return "Permission denied"
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("root, but chattr +i does not hold on this file system")
        undo.append(["chattr", "-i", str(path)])
        return "Operation not permitted"

    yield make
    for command in reversed(undo):
        subprocess.run(command, check=False)


def test_a_write_the_file_system_refuses_is_a_store_fault_at_once_never_a_lock_to_wait_for(
    tmp_path, unwritable
):
    folder = tmp_path / "home"
    folder.mkdir()
    database = folder / "lyra.duckdb"
    conn = duckdb.connect(str(database))
    conn.execute("CREATE TABLE t (x INTEGER)")
    conn.execute("CHECKPOINT")
    words = unwritable(folder)  # the write-ahead log cannot be made beside the file
    try:
        with pytest.raises(
            duckdb.TransactionException
        ) as refused_commit:  # DuckDB's class for a conflict too
            conn.execute("INSERT INTO t VALUES (1)")
    finally:
        conn.close()
    assert words in str(refused_commit.value)
    assert not is_lock_conflict(refused_commit.value)  # no later attempt gets past it: not waited on
    started = time.monotonic()
    with pytest.raises(duckdb.TransactionException):
        STORE_RETRY.run(lambda: (_ for _ in ()).throw(refused_commit.value), timeout_s=60, what=database)
    assert time.monotonic() - started < 1
    fault = store_fault(refused_commit.value, database)
    assert fault is not None and f"the home {folder} cannot be written ({words})" in str(fault)

    other = tmp_path / "other" / "lyra.duckdb"
    other.parent.mkdir()
    duckdb.connect(str(other)).close()
    words = unwritable(other)  # the file itself: no write open
    with pytest.raises(duckdb.IOException) as refused_open:
        duckdb.connect(str(other))
    assert words in str(refused_open.value) and is_read_only_refusal(refused_open.value)
    assert not is_lock_conflict(refused_open.value)
    duckdb.connect(str(other), read_only=True).close()  # what the store falls back to: reads still work


def test_policy_gives_up_as_store_busy_and_never_retries_a_real_error():
    policy = RetryPolicy(first_delay_s=0.01, max_delay_s=0.02)
    tries = []

    def locked():
        tries.append(1)
        raise duckdb.IOException('Could not set lock on file "x.duckdb": Conflicting lock is held')

    with pytest.raises(StoreBusyError, match="x.duckdb stayed locked"):
        policy.run(locked, timeout_s=0.2, what="x.duckdb")
    assert len(tries) > 2

    def broken():
        tries.append(1)
        raise duckdb.CatalogException("Table with name nope does not exist")

    tries.clear()
    with pytest.raises(duckdb.CatalogException):
        policy.run(broken, timeout_s=5, what="x.duckdb")
    assert tries == [1]


def test_store_waits_through_the_shared_policy(store, attempts):
    with held_by_another_process(store.layout.database, 1.0):
        started = time.monotonic()
        assert len(store.list_tasks()) == 1
        assert time.monotonic() - started > 0.5
    assert (str(store.layout.database), attempts[0][1]) == attempts[0] and attempts[0][1] > 1


def test_the_process_counts_the_conflicts_it_waited_out(store):
    before = lock_waits()
    with held_by_another_process(store.layout.database, 1.0):
        store.list_tasks()  # waits for the file held by the other process
    file_waits = lock_waits().since(before)
    assert file_waits.conflicts > 1 and file_waits.write_conflicts == 0 and file_waits.gave_up == 0
    assert 0.3 < file_waits.waited_s < 5

    database = str(store.layout.database)
    task_id = store.list_tasks()[0].id
    before = lock_waits()
    with duckdb.connect(database) as holder:  # a transaction of this process writes the task's row first
        holder.execute("BEGIN TRANSACTION")
        holder.execute("UPDATE tasks SET status = 'running' WHERE id = ?", [task_id])

        def conflicting(conn):
            conn.execute("UPDATE tasks SET status = 'failed' WHERE id = ?", [task_id])

        with pytest.raises(StoreBusyError):
            store.transaction(conflicting, retries_s=0.2)
        holder.execute("ROLLBACK")
    write_waits = lock_waits().since(before)
    assert write_waits.write_conflicts == write_waits.conflicts > 0 and write_waits.gave_up == 1
    assert (file_waits + write_waits).conflicts == file_waits.conflicts + write_waits.conflicts


def test_a_process_that_never_waits_counts_nothing():
    policy = RetryPolicy(first_delay_s=0.01)
    before = lock_waits()
    assert policy.run(lambda: 42, timeout_s=1, what="x.duckdb") == 42
    assert lock_waits().since(before) == LockWaits()


def test_mcp_server_waits_out_another_process_with_the_shared_policy(store, attempts):
    """An agent's call while a pipeline process holds the file: the server's ATTACH is retried by
    the store's policy and the call answers once the file is free."""
    server = build_server(store.home)

    async def list_tasks():
        async with Client(server, read_timeout_seconds=60) as client:
            return await client.call_tool("list_tasks", {})

    with held_by_another_process(store.layout.database, 1.5):
        started = time.monotonic()
        result = anyio.run(list_tasks)
        waited = time.monotonic() - started
    assert not result.is_error and len(result.structured_content["tasks"]) == 1
    assert waited > 0.5  # it really met the lock
    retried = [n for what, n in attempts if what == str(store.layout.database) and n > 1]
    assert retried, attempts


def test_server_store_gives_up_as_busy_after_its_timeout(store):
    server_store = ServerStore(home=store.home, busy_timeout_s=0.3)
    try:
        with (
            held_by_another_process(store.layout.database, 2.0),
            pytest.raises(StoreBusyError, match="stayed locked"),
        ):
            server_store.list_tasks()
        assert len(server_store.list_tasks()) == 1  # and works again once the file is free
    finally:
        server_store.close()


def test_one_policy_is_shared():
    import lyra_resources.store.lyra_store as store_module
    import lyra_tools.mcp.server_store as server_store_module

    assert store_module.STORE_RETRY is STORE_RETRY is server_store_module.STORE_RETRY
    for module in (store_module, server_store_module):
        source = Path(module.__file__).read_text()
        assert "time.sleep" not in source and "is_lock_conflict" not in source  # no loop of their own
