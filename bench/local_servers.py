"""Throw-away PostgreSQL and Redis servers on 127.0.0.1 and Lyra workers, for the cluster profile's tests and benchmark.

- :func:`start_postgres`: a cluster made with ``initdb`` in a temporary folder, started with
  ``pg_ctl`` on a free port (its unix socket in the same folder), no durability (``fsync=off``),
  stopped and deleted at the end. Postgres refuses to run as root, so as root the server runs as
  the unprivileged ``postgres`` user (Debian's package creates it), which then owns the folder.
- :func:`start_redis`: Debian's ``redis-server`` on a free port, nothing kept on disk.
- :func:`lyra_workers`: `lyra worker` processes on the broker the settings name.

Where a server cannot run here (binaries absent, no user to run as) they raise
:class:`ServerUnavailable` with one line saying why; ``scripts/install-system-deps.sh`` installs both.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

PG_BIN = Path(os.environ.get("LYRA_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))
SERVER_USER = "postgres"  # the unprivileged account the server runs as when started by root
_databases = itertools.count(1)


class ServerUnavailable(RuntimeError):
    """A server's binaries or its user are missing on this machine."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PostgresServer:
    """One running cluster; ``url(db)`` is the SQLAlchemy/psycopg URL of a database on it."""

    def __init__(self, root: Path, port: int, superuser: str):
        self.root, self.port, self.superuser = root, port, superuser

    def url(self, database: str) -> str:
        return f"postgresql://{self.superuser}@127.0.0.1:{self.port}/{database}"

    def create_database(self, prefix: str = "lyra_test") -> str:
        """A new, empty database; returns its URL."""
        import psycopg2

        name = f"{prefix}_{next(_databases)}"
        conn = psycopg2.connect(self.url("postgres"))
        conn.autocommit = True  # CREATE DATABASE cannot run inside a transaction
        try:
            with conn.cursor() as cursor:
                cursor.execute(f"CREATE DATABASE {name}")
        finally:
            conn.close()
        return self.url(name)


def _as_server_user() -> tuple[list[str], str]:
    """The command prefix that runs the server's programs unprivileged, and the superuser's name."""
    if os.geteuid() != 0:
        return [], pwd.getpwuid(os.geteuid()).pw_name
    try:
        pwd.getpwnam(SERVER_USER)
    except KeyError:
        raise ServerUnavailable(
            f"running as root and there is no {SERVER_USER!r} user for Postgres to run as"
        ) from None
    return ["runuser", "-u", SERVER_USER, "--"], SERVER_USER


def _run(command: list[str], server_log: Path) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        logged = server_log.read_text(errors="replace")[-2000:] if server_log.exists() else ""
        raise RuntimeError(
            f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}{logged}"
        )


@contextmanager
def start_postgres() -> Iterator[PostgresServer]:
    """Create, start, yield and finally stop and delete a throw-away Postgres cluster."""
    if not (PG_BIN / "initdb").exists() or not (PG_BIN / "pg_ctl").exists():
        raise ServerUnavailable(
            f"PostgreSQL binaries not found in {PG_BIN} (scripts/install-system-deps.sh installs them)"
        )
    prefix, superuser = _as_server_user()
    root = Path(tempfile.mkdtemp(prefix="lyra-pg-"))
    data, log = root / "data", root / "server.log"
    if prefix:  # the server's own user must own its folder (and reach it: mkdtemp makes it 0700)
        user = pwd.getpwnam(SERVER_USER)
        os.chown(root, user.pw_uid, user.pw_gid)
    port = free_port()
    try:
        _run(
            [
                *prefix,
                str(PG_BIN / "initdb"),
                "-D",
                str(data),
                "-U",
                superuser,
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ],
            log,
        )
        options = f"-h 127.0.0.1 -p {port} -k {root} -c fsync=off -c full_page_writes=off"
        _run(
            [
                *prefix,
                str(PG_BIN / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(log),
                "-o",
                options,
                "-w",
                "-t",
                "60",
                "start",
            ],
            log,
        )
        try:
            yield PostgresServer(root, port, superuser)
        finally:
            _run([*prefix, str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], log)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def answers_ping(port: int) -> bool:
    """Whether a Redis on the port answers PING (the protocol's inline form: no client library needed)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def start_redis(folder: Path) -> Iterator[str]:
    """Start ``redis-server`` (its log in ``folder``), yield its URL (database 0), stop it at the end."""
    binary = shutil.which("redis-server") or shutil.which("redis-server", path="/usr/sbin:/usr/bin")
    if binary is None:
        raise ServerUnavailable(
            "redis-server is not installed (apt-get install redis-server; scripts/install-system-deps.sh)"
        )
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "redis.log"
    server = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
            "--logfile",
            str(log),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 20
        while not answers_ping(port):
            if server.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                raise RuntimeError(
                    f"redis-server on port {port} did not start (exit {server.poll()}): {tail}"
                )
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@contextmanager
def lyra_workers(count: int, home: Path, env: dict[str, str], logs: Path) -> Iterator[list[subprocess.Popen]]:
    """``count`` `lyra worker` processes (``--concurrency 1``, logs in ``logs``), each ready on the
    broker the settings in ``env`` name; stopped (their process groups) whatever happens."""
    from lyra_resources.home import REPO_ROOT

    workers: list[subprocess.Popen] = []
    try:
        for i in range(count):
            log = (logs / f"worker{i}.log").open("w")
            workers.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "lyra_tools.cli",
                        "worker",
                        "--home",
                        str(home),
                        "--concurrency",
                        "1",
                    ],
                    cwd=REPO_ROOT,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        # A worker imports Dagster, Celery and Lyra before it says it is ready: minutes on a loaded machine.
        deadline = time.monotonic() + 300
        for i, worker in enumerate(workers):
            while " ready." not in (logs / f"worker{i}.log").read_text(errors="replace"):
                if worker.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"lyra worker {i} did not get ready (exit {worker.poll()}):\n"
                        + (logs / f"worker{i}.log").read_text(errors="replace")[-3000:]
                    )
                time.sleep(0.2)
        yield workers
    finally:
        for worker in workers:
            with suppress(ProcessLookupError):
                os.killpg(worker.pid, signal.SIGTERM)  # the worker and its pool processes
        for worker in workers:
            try:
                worker.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):
                    os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()
