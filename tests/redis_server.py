"""A real Redis for the tests of the cluster profile: Debian's ``redis-server`` on a free port of
127.0.0.1, nothing kept on disk, stopped when the session ends.

Use it by importing the fixture into a test module (``from redis_server import redis_url``); tests
that need it skip with one reason where the binary is absent (scripts/install-system-deps.sh
installs it)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def answers_ping(port: int) -> bool:
    """Whether a Redis on the port answers PING (the protocol's inline form: no client library needed)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a Redis server this session started (database 0)."""
    binary = shutil.which("redis-server") or shutil.which("redis-server", path="/usr/sbin:/usr/bin")
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server; scripts/install-system-deps.sh)")
    port = free_port()
    folder = tmp_path_factory.mktemp("redis")
    log = folder / "redis.log"
    server = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                               "--dir", str(folder), "--logfile", str(log)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while not answers_ping(port):
            if server.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                raise RuntimeError(f"redis-server on port {port} did not start (exit {server.poll()}): {tail}")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
