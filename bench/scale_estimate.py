"""The paper estimate under ``bench.scale``'s table: what a 100-worker deployment would ask of the
store and of the Dagster instance, from the per-task figures the benchmark measured.

Plain arithmetic on measured numbers, every assumption printed with the result."""

from __future__ import annotations

from pydantic import BaseModel, Field


class PerTask(BaseModel):
    """What one task cost, measured (means over the runs of one configuration)."""

    worker_s: float = Field(
        description="worker-seconds per task: wall time × workers ÷ tasks, 1-worker cluster run"
    )
    store_writes: float = Field(
        description="store write transactions per task (asset materializations, each one "
        "staged write, + the publishing swap)"
    )
    rows: float = Field(description="rows the task's graph holds, all tables")
    open_s: float = Field(description="seconds a connection holds the DuckDB file just to open and close")
    rows_write_s: float = Field(
        description="seconds writing all the task's rows takes (Parquet + one transaction)"
    )
    pg_open_s: float | None = Field(
        None, description="seconds to open and close a session of the Postgres store"
    )
    pg_rows_write_s: float | None = Field(
        None,
        description="seconds writing all the task's rows into the Postgres "
        "store takes (Parquet + one transaction)",
    )
    lock_wait_s: float = Field(
        description="seconds of store lock wait per task in the busiest measured configuration"
    )
    events: float = Field(description="Dagster event-log rows per run")


def estimate_lines(per_task: PerTask, workers: int = 100) -> list[str]:
    """The estimate for ``workers`` workers, as printable lines (assumptions first)."""
    rate = workers / per_task.worker_s if per_task.worker_s > 0 else float("nan")  # tasks/s
    # Every write transaction opens the file; the rows are written once more by the publishing swap.
    busy_s = per_task.store_writes * per_task.open_s + per_task.rows_write_s
    rho = rate * busy_s
    if rho < 1:
        wait = f"{rho / (1 - rho) * busy_s:.1f} s per task (M/M/1 per write: ρ/(1−ρ) × its hold, summed)"
    else:
        wait = "unbounded: the file is busy more than 100 % of the time, the queue of writers only grows"
    max_rate = 1 / busy_s if busy_s > 0 else float("inf")
    return [
        f"paper estimate for {workers} workers (assumptions: one task at a time per worker, a task costs the "
        f"{per_task.worker_s:.0f} worker-seconds measured with 1 worker, throughput grows linearly with workers "
        "until the store or the instance stops it; DuckDB admits one writing process at a time and excludes "
        "other processes' readers while it writes)",
        f"  tasks: {rate:.2f}/s ({rate * 3600:,.0f}/hour)",
        f"  store writes: {per_task.store_writes:.0f} write transactions per task → {rate * per_task.store_writes:.0f} "
        f"transactions/s; {per_task.rows:,.0f} rows per task → {rate * per_task.rows:,.0f} rows/s",
        f"  one DuckDB file: each write opens it ({per_task.open_s * 1000:.0f} ms measured) and writing the "
        f"task's rows takes {per_task.rows_write_s:.2f} s (measured, with Parquet) → held ≈ {busy_s:.2f} s per task, "
        f"busy {rho:.0%} of the time (ρ); expected lock wait {wait}; "
        f"measured so far {per_task.lock_wait_s:.2f} s per task. One file tops out near {max_rate * 3600:,.0f} "
        "tasks/hour whatever the worker count, and every MCP/CLI reader in another process waits behind "
        "the writers: the local profile's store does not take 100 workers",
        *_postgres_lines(per_task, rate),
        f"  Dagster instance: {per_task.events:.0f} event-log rows per run → {rate * per_task.events:,.0f} "
        f"event rows/s into Postgres (plus run and step rows), {rate * per_task.events * 86400 / 1e6:,.1f} million "
        "a day: one Postgres takes this with batched inserts, but event-log retention has to be set",
    ]


def _postgres_lines(per_task: PerTask, rate: float) -> list[str]:
    """The cluster profile's store: writers of different tasks do not wait for each other, so what
    it asks is a rate of sessions, transactions and rows, not a share of one lock."""
    if per_task.pg_open_s is None or per_task.pg_rows_write_s is None:
        return ["  Postgres store: not measured in this run (no cluster configuration finished a task)"]
    busy_s = per_task.store_writes * per_task.pg_open_s + per_task.pg_rows_write_s
    return [
        f"  Postgres store (the cluster profile's): a session opens in {per_task.pg_open_s * 1000:.0f} ms and the "
        f"task's rows are written in {per_task.pg_rows_write_s:.2f} s (measured, with Parquet); writers of different "
        f"tasks proceed side by side (row locks; one advisory lock per task), so {rate:.2f} tasks/s keep "
        f"≈ {rate * busy_s:.1f} writing sessions busy on average and open {rate * per_task.store_writes:.0f} "
        f"writing sessions/s (every store call opens one, reads too: beyond a few hundred a second put PgBouncer "
        f"in front) and ask "
        f"{rate * per_task.rows * 2:,.0f} row writes/s (staged, then published), within one Postgres's reach; "
        "readers never wait for writers (MVCC)",
    ]
