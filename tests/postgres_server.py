"""A real PostgreSQL server for the tests of the cluster profile: a throw-away cluster made with
``initdb`` in a temporary folder, started with ``pg_ctl`` on a free port of 127.0.0.1 (its unix
socket in the same folder), one fresh database per test, stopped at the end of the session.

Postgres refuses to run as root, so as root the server runs as the unprivileged ``postgres`` user
(Debian's package creates it), which then owns the data folder. The tests skip with one reason
where the binaries are absent (`scripts/install-system-deps.sh` installs them).
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_BIN = Path(os.environ.get("LYRA_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))
SERVER_USER = "postgres"  # the unprivileged account the server runs as when the tests run as root
_databases = itertools.count(1)


class PostgresServer:
    """One running test cluster; ``url(db)`` is the SQLAlchemy/psycopg URL of a database on it."""

    def __init__(self, root: Path, port: int, superuser: str):
        self.root, self.port, self.superuser = root, port, superuser

    def url(self, database: str) -> str:
        return f"postgresql://{self.superuser}@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A new, empty database; returns its URL."""
        import psycopg2

        name = f"lyra_test_{next(_databases)}"
        conn = psycopg2.connect(self.url("postgres"))
        conn.autocommit = True  # CREATE DATABASE cannot run inside a transaction
        try:
            with conn.cursor() as cursor:
                cursor.execute(f"CREATE DATABASE {name}")
        finally:
            conn.close()
        return self.url(name)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _as_server_user() -> tuple[list[str], str]:
    """The command prefix that runs the server's programs unprivileged, and the superuser's name."""
    if os.geteuid() != 0:
        return [], pwd.getpwuid(os.geteuid()).pw_name
    try:
        pwd.getpwnam(SERVER_USER)
    except KeyError:
        pytest.skip(f"tests run as root and there is no {SERVER_USER!r} user for Postgres to run as")
    return ["runuser", "-u", SERVER_USER, "--"], SERVER_USER


def _run(command: list[str], server_log: Path) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        logged = server_log.read_text(errors="replace")[-2000:] if server_log.exists() else ""
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}{logged}")


def start_postgres() -> Iterator[PostgresServer]:
    """Create, start, yield and finally stop a throw-away Postgres cluster."""
    if not (PG_BIN / "initdb").exists() or not (PG_BIN / "pg_ctl").exists():
        pytest.skip(f"PostgreSQL binaries not found in {PG_BIN} (scripts/install-system-deps.sh installs them)")
    prefix, superuser = _as_server_user()
    root = Path(tempfile.mkdtemp(prefix="lyra-pg-"))
    data, log = root / "data", root / "server.log"
    if prefix:  # the server's own user must own its folder (and reach it: mkdtemp makes it 0700)
        user = pwd.getpwnam(SERVER_USER)
        os.chown(root, user.pw_uid, user.pw_gid)
    port = _free_port()
    try:
        _run([*prefix, str(PG_BIN / "initdb"), "-D", str(data), "-U", superuser, "--auth=trust",
              "--no-sync", "-E", "UTF8", "--locale=C"], log)
        options = f"-h 127.0.0.1 -p {port} -k {root} -c fsync=off -c full_page_writes=off"
        _run([*prefix, str(PG_BIN / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w",
              "-t", "60", "start"], log)
        try:
            yield PostgresServer(root, port, superuser)
        finally:
            _run([*prefix, str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], log)
    finally:
        shutil.rmtree(root, ignore_errors=True)
