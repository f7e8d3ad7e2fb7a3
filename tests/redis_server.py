"""A real Redis for the tests of the cluster profile: ``bench.local_servers.start_redis`` (Debian's
``redis-server`` on a free port of 127.0.0.1, nothing kept on disk), stopped when the session ends.

Use it by importing the fixture into a test module (``from redis_server import redis_url``); tests
that need it skip with one reason where the binary is absent (scripts/install-system-deps.sh
installs it)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from bench.local_servers import ServerUnavailable, start_redis


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a Redis server this session started (database 0)."""
    with ExitStack() as stack:
        try:
            url = stack.enter_context(start_redis(tmp_path_factory.mktemp("redis")))
        except ServerUnavailable as missing:
            pytest.skip(str(missing))
        yield url
