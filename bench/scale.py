"""Many tasks at once: the default profile against the cluster profile on 1, 2 and 4 workers.

    .venv/bin/python -m bench.scale [--tasks 8] [--workers 1,2,4] [--papers 10] [--home DIR]
        [--skip-default] [--max-runs N] [--max-minutes 60]

N tasks on the SciFact corpus (../shared/data/scifact/corpus.jsonl, 5,183 abstracts), their
questions the first N SciFact *train* claims turned into yes/no questions (``bench.answers``'s
rule), each asking the corpus for ``--papers`` papers, all submitted at once, then run by:

- **default, sequential**: ``run_control.run_task`` one task after the other in this process (what
  ``lyra run`` gives a user of the local profile);
- **default, N processes**: N ``lyra task run`` processes started at once on the same home (one
  DuckDB file, many writing processes);
- **cluster, W workers**: the cluster profile on this machine: a throw-away Postgres and Redis on
  127.0.0.1 (``bench.local_servers``), runs asked for with ``run_control.queue_task``, created by
  the daemon's sensor and started by Dagster's queued-run daemon (in this process, one iteration a
  second; ``max_concurrent_runs`` = N or ``--max-runs``), their steps executed by W ``lyra worker``
  processes.

Every configuration gets a fresh home under ``--home``. Measured: wall time (first submit → last
run finished), throughput, task latency (its submit → its run finished: p50/p95), the store lock
waits the runs' step processes recorded (``store_lock_waits``, summed over runs), and the latency of
MCP read tools (``get_evidence_summary`` and ``get_status`` in turn every 0.5 s, through the MCP
SDK's in-memory client in a thread of this process, as ``bench.mcp`` drives the server) while the
runs go on. In the sequential configuration the runs share this process with the MCP thread, so
their lock waits include the reader's. A paper estimate for 100 workers follows the table
(``bench.scale_estimate``).
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import anyio
import numpy as np
import yaml
from pydantic import BaseModel, Field

from bench.answers import to_question
from bench.common import read_jsonl, require_data
from bench.scale_estimate import PerTask, estimate_lines
from lyra_resources.home import REPO_ROOT
from lyra_resources.store.locks import LockWaits

CLUSTER_ENV = ("LYRA_PROFILE", "LYRA_POSTGRES_URL", "LYRA_REDIS_URL")


class Measured(BaseModel):
    """One configuration's run of the N tasks."""

    name: str
    tasks: int
    finished: int = 0
    failed: int = 0
    wall_s: float = 0.0
    latencies_s: list[float] = Field(default_factory=list)
    run_s: list[float] = Field(
        default_factory=list, description="each run's start → end in the Dagster instance"
    )
    waits: LockWaits = Field(default_factory=LockWaits)
    mcp_ms: list[float] = Field(default_factory=list)
    mcp_errors: int = 0
    events: list[int] = Field(default_factory=list, description="event-log rows per run")
    materializations: list[int] = Field(default_factory=list)
    rows: list[int] = Field(default_factory=list, description="rows of each finished task's graph")
    workers: int = 0

    def pct(self, values: list[float], q: float) -> float:
        return float(np.percentile(values, q)) if values else float("nan")


class McpReader(threading.Thread):
    """Calls the MCP server's read tools in turn every ``every_s`` until stopped; keeps the latencies."""

    def __init__(self, home: Path, task_ids: list[str], every_s: float = 0.5):
        super().__init__(daemon=True)
        self.home, self.task_ids, self.every_s = home, task_ids, every_s
        self.stop = threading.Event()
        self.ms: list[float] = []
        self.errors = 0

    def run(self) -> None:
        from mcp import Client

        from lyra_tools.mcp.server import build_server

        async def loop() -> None:
            async with Client(build_server(self.home), read_timeout_seconds=300) as client:
                k = 0
                while not self.stop.is_set():
                    tool = ("get_evidence_summary", "get_status")[k % 2]
                    started = time.perf_counter()
                    answer = await client.call_tool(
                        tool, {"task_id": self.task_ids[(k // 2) % len(self.task_ids)]}
                    )
                    self.ms.append((time.perf_counter() - started) * 1000)
                    self.errors += int(answer.is_error)  # a task with no graph yet answers so: still a read
                    k += 1
                    await anyio.sleep(max(0.0, self.every_s - (time.perf_counter() - started)))

        anyio.run(loop)


def questions(n: int) -> list[str]:
    claims = read_jsonl(require_data("scifact", "claims_train.jsonl"))[:n]  # train side only
    return [to_question(c["claim"])[0] for c in claims]


def fresh_home(
    root: Path, name: str, corpus: Path, papers: int, qs: list[str], cluster: dict | None = None
) -> tuple[Path, list[str]]:
    """A new home with its settings file (this process and its children read it) and the N tasks."""
    from lyra_assets.execution.runs import open_instance
    from lyra_resources.store.lyra_store import LyraStore

    home = root / name
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    settings = yaml.safe_load((REPO_ROOT / "config" / "settings.yaml").read_text()) or {}
    if cluster:
        settings["cluster"] = cluster
    (home / "settings.yaml").write_text(yaml.safe_dump(settings))
    for name_ in CLUSTER_ENV:  # the settings file says which profile, nothing else
        os.environ.pop(name_, None)
    os.environ.update({"LYRA_SETTINGS": str(home / "settings.yaml"), "LYRA_HOME": str(home)})
    store = LyraStore.at(home)
    ids = [store.create_task(q, {"corpus": [str(corpus)], "papers_per_source": papers}).id for q in qs]
    # The instance's storage is created once here: two first opens at once race on a new sqlite schema.
    with open_instance(home):
        pass
    return home, ids


def collect(m: Measured, home: Path, runs: dict[str, str]) -> Measured:
    """The runs' records: lock waits, event rows, durations; each finished task's rows."""
    from dagster import DagsterEventType

    from lyra_assets.execution.runs import open_instance
    from lyra_assets.graph.publish import store_lock_waits
    from lyra_resources.store.lyra_store import LyraStore

    store = LyraStore.at(home)
    with open_instance(home) as instance:
        for task_id, run_id in runs.items():
            record = instance.get_run_record_by_id(run_id)
            if record is None:
                continue
            m.waits = m.waits + store_lock_waits(instance, run_id)
            logs = instance.all_logs(run_id)
            m.events.append(len(logs))
            m.materializations.append(
                sum(1 for e in logs if e.dagster_event_type == DagsterEventType.ASSET_MATERIALIZATION)
            )
            if record.start_time and record.end_time:
                m.run_s.append(record.end_time - record.start_time)
            if record.dagster_run.status.value == "SUCCESS":
                m.rows.append(sum(store.row_counts(task_id).values()))
    return m


def run_sequential(home: Path, ids: list[str], deadline: float) -> tuple[Measured, dict[str, str]]:
    from lyra_assets.execution import run_control

    m, runs = Measured(name="default 1 process", tasks=len(ids)), {}
    started = time.monotonic()
    for task_id in ids:
        if time.monotonic() > deadline:
            break
        outcome = run_control.run_task(task_id, home)
        runs[task_id] = outcome.run_id
        m.latencies_s.append(time.monotonic() - started)
        m.finished += int(outcome.success)
        m.failed += int(not outcome.success)
    m.wall_s = time.monotonic() - started
    return m, runs


def run_processes(home: Path, ids: list[str], deadline: float) -> tuple[Measured, dict[str, str]]:
    from lyra_resources.store.lyra_store import LyraStore

    m = Measured(name=f"default {len(ids)} processes", tasks=len(ids))
    logs = home / "logs"
    logs.mkdir()
    started = time.monotonic()
    procs = {
        task_id: subprocess.Popen(
            [sys.executable, "-m", "lyra_tools.cli", "task", "run", task_id, "--home", str(home)],
            cwd=REPO_ROOT,
            stdout=(logs / f"{task_id}.log").open("w"),
            stderr=subprocess.STDOUT,
        )
        for task_id in ids
    }
    pending = dict(procs)
    while pending and time.monotonic() < deadline:
        for task_id, proc in list(pending.items()):
            if proc.poll() is not None:
                m.latencies_s.append(time.monotonic() - started)
                m.finished += int(proc.returncode == 0)
                m.failed += int(proc.returncode != 0)
                del pending[task_id]
        time.sleep(0.2)
    for proc in pending.values():  # past --max-minutes
        proc.terminate()
        proc.wait()
    m.wall_s = time.monotonic() - started
    store = LyraStore.at(home)
    return m, {t: run_id for t in ids if (run_id := store.require_task(t).last_run_id)}


def run_cluster(home: Path, ids: list[str], workers: int, deadline: float) -> tuple[Measured, dict[str, str]]:
    # The queued-run daemon's iterations, run in this process as `lyra daemon` runs them: Dagster has
    # no public API for that (only the `dagster-daemon` command).
    from dagster._core.workspace.context import WorkspaceProcessContext
    from dagster._core.workspace.load_target import WorkspaceFileTarget
    from dagster._daemon.run_coordinator.queued_run_coordinator_daemon import QueuedRunCoordinatorDaemon
    from dagster._daemon.sensor import execute_sensor_iteration

    from bench.local_servers import lyra_workers
    from lyra_assets.execution import run_control
    from lyra_assets.execution.run_queue import run_of_request
    from lyra_assets.execution.runs import open_instance

    m = Measured(
        name=f"cluster {workers} worker{'s' if workers > 1 else ''}", tasks=len(ids), workers=workers
    )
    sys.modules.pop("lyra_assets.repository", None)  # its `defs` are built from the settings at import
    logs = home / "logs"
    logs.mkdir()
    workspace = WorkspaceFileTarget(paths=[str(REPO_ROOT / "workspace.yaml")])  # what `lyra daemon` loads
    with (
        output_to(logs / "daemon-and-runs.log"),
        lyra_workers(workers, home, dict(os.environ), logs),
        open_instance(home) as instance,
        WorkspaceProcessContext(instance, workspace) as context,
        QueuedRunCoordinatorDaemon(interval_seconds=1) as daemon,
    ):
        started = time.monotonic()
        submitted = {}
        runs = {}
        requests = {}
        for task_id in ids:
            submitted[task_id] = time.monotonic()
            requests[task_id] = run_control.queue_task(task_id, home).request_id
        pending = dict(requests)
        sensors = logging.getLogger("sensors")
        while pending and time.monotonic() < deadline:
            list(execute_sensor_iteration(context, sensors, None, None))  # requests become queued runs
            list(daemon.run_iteration(context))
            for task_id, request_id in list(pending.items()):
                run_id = runs.get(task_id) or run_of_request(instance, request_id)
                if run_id is None:
                    continue
                runs[task_id] = run_id
                run = instance.get_run_by_id(run_id)
                if run.is_finished:
                    m.latencies_s.append(time.monotonic() - submitted[task_id])
                    m.finished += int(run.status.value == "SUCCESS")
                    m.failed += int(run.status.value != "SUCCESS")
                    del pending[task_id]
            time.sleep(1)
        for task_id in pending:  # past --max-minutes
            run_control.stop_task(task_id, home)
        m.wall_s = time.monotonic() - started
    return m, runs


def file_hold_s(home: Path, task_id: str, repeats: int = 5) -> tuple[float, float]:
    """Seconds a connection to the home's store takes just to open and close (every write
    transaction pays it: on DuckDB it holds the file meanwhile), and seconds ``replace_partitions``
    takes to write all of a finished task's rows again (its Parquet files and one transaction):
    medians. The home's settings say which store (the DuckDB file or Postgres)."""
    from lyra_resources.store.lyra_store import PER_TASK_TABLES, LyraStore

    store = LyraStore.at(home)
    frames = {table: store.read_partition(table, task_id) for table in PER_TASK_TABLES}
    opens, writes = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        with store.connect():
            pass
        opens.append(time.perf_counter() - started)
        started = time.perf_counter()
        store.replace_partitions(task_id, frames)
        writes.append(time.perf_counter() - started)
    return float(np.median(opens)), float(np.median(writes))


@contextmanager
def output_to(path: Path) -> Iterator[None]:
    """This process's stdout and stderr, and so its children's (the daemon's code server and the runs
    it starts log every event to the console), go to ``path`` until the block ends."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with path.open("a") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, copy in zip((1, 2), saved, strict=True):
                os.dup2(copy, fd)
                os.close(copy)


def table(results: list[Measured]) -> list[str]:
    base = next((r for r in results if r.name == "default 1 process"), None)

    def tph(r: Measured) -> float:
        return r.finished / r.wall_s * 3600 if r.wall_s else float("nan")

    rows: list[tuple[str, list[str]]] = [
        ("tasks finished / failed", [f"{r.finished}/{r.failed}" for r in results]),
        ("wall s", [f"{r.wall_s:.0f}" for r in results]),
        ("tasks/hour", [f"{tph(r):.0f}" for r in results]),
        ("latency p50 s", [f"{r.pct(r.latencies_s, 50):.0f}" for r in results]),
        ("latency p95 s", [f"{r.pct(r.latencies_s, 95):.0f}" for r in results]),
        ("run duration p50 s", [f"{r.pct(r.run_s, 50):.0f}" for r in results]),
        ("lock conflicts waited out", [str(r.waits.conflicts) for r in results]),
        ("  of which write-write", [str(r.waits.write_conflicts) for r in results]),
        ("  waits given up", [str(r.waits.gave_up) for r in results]),
        ("  seconds slept", [f"{r.waits.waited_s:.1f}" for r in results]),
        ("MCP read p50 ms", [f"{r.pct(r.mcp_ms, 50):.0f}" for r in results]),
        ("MCP read p95 ms", [f"{r.pct(r.mcp_ms, 95):.0f}" for r in results]),
        ("MCP reads (error answers)", [f"{len(r.mcp_ms)} ({r.mcp_errors})" for r in results]),
    ]
    if base is not None:
        rows += [
            ("wall × sequential", [f"{r.wall_s / base.wall_s:.2f}" for r in results]),
            ("tasks/hour × sequential", [f"{tph(r) / tph(base):.2f}" if tph(base) else "-" for r in results]),
            (
                "latency p95 × sequential",
                [f"{r.pct(r.latencies_s, 95) / base.pct(base.latencies_s, 95):.2f}" for r in results],
            ),
        ]
    width = max(14, *(len(r.name) for r in results))
    lines = [f"{'':28}" + "".join(f"{r.name:>{width + 2}}" for r in results)]
    lines += [f"{label:28}" + "".join(f"{v:>{width + 2}}" for v in values) for label, values in rows]
    return lines


def measure(run, home: Path, ids: list[str], *args) -> Measured:
    reader = McpReader(home, ids)
    reader.start()
    try:
        m, runs = run(home, ids, *args)
    finally:
        reader.stop.set()
        reader.join(timeout=60)
    m.mcp_ms, m.mcp_errors = reader.ms, reader.errors
    collect(m, home, runs)
    print(
        f"{m.name}: {m.finished}/{m.tasks} finished in {m.wall_s:.0f}s; store lock waits {m.waits}",
        flush=True,
    )
    return m


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=8, help="tasks submitted at once")
    parser.add_argument(
        "--workers", default="1,2,4", help="cluster configurations: lyra worker processes each"
    )
    parser.add_argument("--papers", type=int, default=10, help="papers each task asks of the corpus")
    parser.add_argument(
        "--home", default=".lyra/bench-scale", help="folder of the configurations' fresh homes"
    )
    parser.add_argument("--skip-default", action="store_true", help="run the cluster configurations only")
    parser.add_argument(
        "--max-runs", type=int, default=None, help="cluster max_concurrent_runs (default: --tasks)"
    )
    parser.add_argument(
        "--max-minutes", type=float, default=60.0, help="stop starting and waiting after this"
    )
    args = parser.parse_args()
    worker_counts = [int(w) for w in args.workers.split(",") if w.strip()]
    logging.disable(logging.INFO)  # Dagster's instance migrations and daemon log at INFO
    os.environ.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    deadline = time.monotonic() + args.max_minutes * 60
    root = Path(args.home).resolve()
    corpus = require_data("scifact", "corpus.jsonl")
    qs = questions(args.tasks)
    print(
        f"{args.tasks} tasks × {args.papers} papers on {corpus} ({os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f})",
        flush=True,
    )
    results: list[Measured] = []
    hold: tuple[float, float] | None = None  # the DuckDB file's
    pg_hold: tuple[float, float] | None = None  # the Postgres store's
    if not args.skip_default:
        home, ids = fresh_home(root, "default-sequential", corpus, args.papers, qs)
        results.append(measure(run_sequential, home, ids, deadline))
        if results[-1].rows:
            hold = file_hold_s(home, ids[0])
        home, ids = fresh_home(root, "default-processes", corpus, args.papers, qs)
        results.append(measure(run_processes, home, ids, deadline))
    if worker_counts:
        from bench.local_servers import (
            lyra_workers,  # noqa: F401 (fails here, not mid-run, without the extra)
            start_postgres,
            start_redis,
        )

        with ExitStack() as servers:
            postgres = servers.enter_context(start_postgres())
            redis_url = servers.enter_context(start_redis(root / "redis"))
            for w in worker_counts:
                if time.monotonic() > deadline:
                    print(f"--max-minutes reached: cluster {w} workers not run")
                    continue
                cluster = {
                    "profile": "cluster",
                    "postgres_url": postgres.create_database("lyra_bench"),
                    "redis_url": redis_url,
                    "max_concurrent_runs": args.max_runs or args.tasks,
                }
                home, ids = fresh_home(root, f"cluster-{w}", corpus, args.papers, qs, cluster)
                results.append(measure(run_cluster, home, ids, w, deadline))
                if pg_hold is None and results[-1].rows:
                    pg_hold = file_hold_s(home, ids[0])
    print()
    print("\n".join(table(results)))
    one = next((r for r in results if r.workers == 1 and r.finished), None) or next(
        (r for r in results if r.finished), None
    )
    if one is None or hold is None:
        print("\nno default configuration finished a task (or --skip-default): no estimate")
        return
    busiest = max(results, key=lambda r: r.waits.waited_s)
    per_task = PerTask(
        worker_s=one.wall_s * max(one.workers, 1) / one.finished,
        store_writes=float(np.mean(one.materializations)) + 1,
        rows=float(np.mean(one.rows)),
        open_s=hold[0],
        rows_write_s=hold[1],
        lock_wait_s=busiest.waits.waited_s / max(busiest.finished, 1),
        events=float(np.mean(one.events)),
        pg_open_s=pg_hold[0] if pg_hold else None,
        pg_rows_write_s=pg_hold[1] if pg_hold else None,
    )
    print(
        f"\nper task ({one.name}): {per_task.worker_s:.0f} worker-s, {per_task.store_writes:.0f} store writes, "
        f"{per_task.rows:,.0f} rows, {per_task.events:.0f} event rows; lock wait {per_task.lock_wait_s:.2f} s "
        f"({busiest.name})"
    )
    print("\n".join(estimate_lines(per_task)))


if __name__ == "__main__":
    main()
