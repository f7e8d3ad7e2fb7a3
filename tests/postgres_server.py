"""A real PostgreSQL server for the tests of the cluster profile: the throw-away cluster of
``bench.local_servers`` (``initdb`` in a temporary folder, ``pg_ctl`` on a free port of 127.0.0.1),
one fresh database per test, stopped at the end of the session. The tests skip with one reason
where the binaries (or, as root, the ``postgres`` user) are absent."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from bench.local_servers import PostgresServer, ServerUnavailable
from bench.local_servers import start_postgres as _start_postgres


def start_postgres() -> Iterator[PostgresServer]:
    """Start, yield and finally stop a throw-away Postgres cluster; skip where it cannot run."""
    with ExitStack() as stack:
        try:
            server = stack.enter_context(_start_postgres())
        except ServerUnavailable as missing:
            pytest.skip(str(missing))
        yield server
