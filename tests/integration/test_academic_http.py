"""The shared API client against real HTTP servers on 127.0.0.1: retries that honour Retry-After,
the bounded retry budget, the on-disk cache without the network, fail-fast connection errors,
and the rate limiter."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from lyra_resources.sources.academic import (
    ApiClient,
    ApiStatusError,
    HttpCache,
    HttpPolicy,
    RateLimiter,
    SemanticScholarClient,
    SourceUnreachable,
)
from lyra_resources.sources.academic.policy import retry_after_seconds


class Scripted(BaseHTTPRequestHandler):
    """Answers from ``server.script`` in order (status, headers, body); then 200 with ``server.final``."""

    def log_message(self, *args):
        pass

    def _answer(self):
        self.server.seen.append((time.monotonic(), self.command, self.path))
        status, headers, body = (
            self.server.script.pop(0) if self.server.script else (200, {}, self.server.final)
        )
        raw = json.dumps(body).encode()
        self.send_response(status)
        for key, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    do_GET = do_POST = _answer


@pytest.fixture
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Scripted)
    srv.script, srv.seen = [], []
    srv.final = {
        "paperId": "abc",
        "title": "A paper title long enough",
        "externalIds": {"DOI": "10.1000/xyz"},
    }
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def client_for(base: str, cache: HttpCache | None = None, **policy) -> SemanticScholarClient:
    settings = {
        "requests_per_second": 1000,
        "backoff_s": 0.05,
        "max_attempts": 4,
        "max_retry_wait_s": 10,
        "connect_timeout_s": 5,
        "read_timeout_s": 5,
        **policy,
    }
    return SemanticScholarClient(
        ApiClient(HttpPolicy(api="Semantic Scholar", base_url=base, **settings), cache)
    )


def base(server) -> str:
    return f"http://127.0.0.1:{server.server_port}/graph/v1"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_429_then_500_then_200_succeeds_after_waiting_as_told(server):
    server.script = [
        (429, {"Retry-After": "1"}, {"message": "Too Many Requests"}),
        (500, {}, {"message": "Internal Server Error"}),
    ]
    client = client_for(base(server))
    started = time.monotonic()
    record = asyncio.run(client.get_paper("DOI:10.1000/xyz"))
    elapsed = time.monotonic() - started
    assert record is not None and record.doi == "10.1000/xyz"
    times = [t for t, _, _ in server.seen]
    assert len(times) == 3
    assert times[1] - times[0] >= 1.0  # Retry-After: 1 was obeyed
    assert elapsed >= 1.0
    assert client.http.stats.retries == 2 and client.http.stats.requests == 3


def test_retries_are_bounded_and_say_why(server):
    server.script = [(503, {}, {"message": "busy"})] * 5
    client = client_for(base(server), max_attempts=3, backoff_s=0.01)
    with pytest.raises(
        ApiStatusError,
        match=r"GET /paper/DOI:10\.1000/xyz: gave up after 3 attempts; last: "
        r"HTTP 503: busy",
    ) as err:
        asyncio.run(client.get_paper("DOI:10.1000/xyz"))
    assert err.value.status == 503 and len(server.seen) == 3
    # a Retry-After beyond the budget is not waited for
    server.script = [(429, {"Retry-After": "120"}, {"message": "slow down"})]
    patient = client_for(base(server))
    with pytest.raises(ApiStatusError, match=r"retrying needs 120\.0s more but only 10\.0s"):
        asyncio.run(patient.get_paper("DOI:10.1000/other"))
    # one request, then no wait and no retry: the client gave up at once
    assert (patient.http.stats.requests, patient.http.stats.retries, patient.http.stats.waited_s) == (
        1,
        0,
        0.0,
    )
    assert len(server.seen) == 4


def test_a_batch_s2_answers_404_finds_nothing_and_the_next_batch_goes_on(server):
    """S2 answers /paper/batch with 404 when it knows none of the ids: that batch adds no paper,
    and the lookup goes on with the next one (500 ids a batch)."""
    server.script = [(404, {}, {"error": "not found"})]
    server.final = [
        {"paperId": "abc", "title": "A paper title long enough", "externalIds": {"DOI": "10.1000/xyz"}}
    ]
    ids = [f"PMID:{n}" for n in range(1, 501)] + ["DOI:10.1000/xyz"]
    found = asyncio.run(client_for(base(server)).get_papers(ids))
    assert list(found) == ["DOI:10.1000/xyz"] and found["DOI:10.1000/xyz"].doi == "10.1000/xyz"
    assert [method for _, method, _ in server.seen] == ["POST", "POST"]


def test_the_cache_answers_a_repeated_request_with_the_server_stopped(server, tmp_path):
    cache = HttpCache(tmp_path / "http")
    first = asyncio.run(client_for(base(server), cache).get_paper("DOI:10.1000/xyz"))
    assert len(server.seen) == 1
    url = base(server)
    server.shutdown()
    server.server_close()  # the network is gone
    again = client_for(url, cache)
    assert asyncio.run(again.get_paper("doi:10.1000/XYZ")) == first  # same request once normalised
    assert again.http.stats.cache_hits == 1 and again.http.stats.requests == 0
    with pytest.raises(SourceUnreachable, match=r"cannot connect to 127\.0\.0\.1"):
        asyncio.run(again.get_paper("DOI:10.1000/not-cached"))
    # a refused connection fails on the first attempt: no retry, no wait
    assert (again.http.stats.requests, again.http.stats.retries, again.http.stats.waited_s) == (1, 0, 0.0)


def test_a_stale_answer_is_served_when_the_api_is_down(server, tmp_path):
    cache = HttpCache(tmp_path / "http", ttl_s=0.001)
    asyncio.run(client_for(base(server), cache).get_paper("DOI:10.1000/xyz"))
    time.sleep(0.01)
    server.script = [(503, {}, {"message": "down"})] * 4
    client = client_for(base(server), cache, max_attempts=2, backoff_s=0.01)
    record = asyncio.run(client.get_paper("DOI:10.1000/xyz"))
    assert record is not None and client.http.stats.stale_hits == 1


def test_no_network_fails_fast_and_only_once():
    client = client_for(f"http://127.0.0.1:{closed_port()}/graph/v1")
    with pytest.raises(SourceUnreachable, match=r"Semantic Scholar GET /paper/search: cannot connect"):
        asyncio.run(client.search("vitamin D", 10))
    # remembered: the next call fails with the same reason and no second connection attempt
    with pytest.raises(SourceUnreachable, match=r"GET /paper/DOI:10\.1000/xyz: cannot connect") as again:
        asyncio.run(client.get_paper("DOI:10.1000/xyz"))
    assert client.http.unreachable and client.http.unreachable in str(again.value)
    assert (client.http.stats.requests, client.http.stats.retries, client.http.stats.waited_s) == (1, 0, 0.0)


def test_secret_parameters_stay_out_of_the_cache_key(server, tmp_path):
    cache = HttpCache(tmp_path / "http")
    first = client_for(base(server), cache, params={"mailto": "a@example.org"})
    asyncio.run(first.get_paper("DOI:10.1000/xyz"))
    assert "mailto=a%40example.org" in server.seen[0][2]
    second = client_for(base(server), cache, params={"mailto": "b@example.org"})
    asyncio.run(second.get_paper("DOI:10.1000/xyz"))
    assert len(server.seen) == 1 and second.http.stats.cache_hits == 1
    stored = next((tmp_path / "http").rglob("*.json")).read_text()
    assert "example.org" not in stored


def test_rate_limiter_spaces_requests():
    limiter = RateLimiter(requests_per_second=20)

    async def five():
        for _ in range(5):
            await limiter.wait()

    started = time.monotonic()
    asyncio.run(five())
    assert time.monotonic() - started >= 4 / 20 - 0.01
    limiter.hold(0.2)
    assert limiter.reserve() >= 0.15


class OneRouteBusy(BaseHTTPRequestHandler):
    """``/works?filter=cites:…`` answers 429 with ``Retry-After: 1`` the first time; every other
    request, and that one again, 200. Each arrival is recorded (monotonic time, path, status)."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        busy = "filter=cites" in self.path and not self.server.told
        self.server.told |= busy
        self.server.seen.append((time.monotonic(), self.path, 429 if busy else 200))
        raw = json.dumps({"message": "Too Many Requests"} if busy else {"results": []}).encode()
        self.send_response(429 if busy else 200)
        if busy:
            self.send_header("Retry-After", "1")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def test_retry_after_holds_every_route_of_the_api_and_the_told_request_goes_first():
    """After a 429 with Retry-After: 1 on one route, no request to any route of that API arrives
    within the second that follows, concurrent ones already waiting for their turn included; then
    the request that was told to wait is the first to go, not the last of the queue."""
    srv = ThreadingHTTPServer(("127.0.0.1", 0), OneRouteBusy)
    srv.seen, srv.told = [], False
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    policy = HttpPolicy(
        api="OpenAlex",
        base_url=f"http://127.0.0.1:{srv.server_port}",
        requests_per_second=5,
        max_attempts=3,
        max_retry_wait_s=10,
        connect_timeout_s=2,
        read_timeout_s=5,
    )

    async def run():
        async with ApiClient(policy) as client:  # the cites walk first, ten lookups queued behind it
            return await asyncio.gather(
                client.get_json("/works", {"filter": "cites:W1"}),
                *(client.get_json(f"/works/W{i}") for i in range(2, 12)),
            )

    try:
        answers = asyncio.run(run())
    finally:
        srv.shutdown()
        srv.server_close()
    assert answers == [{"results": []}] * 11
    (told_at, path, status), *after = srv.seen
    assert status == 429 and "cites" in path and len(after) == 11
    early = [(round(t - told_at, 2), p) for t, p, _ in after if t < told_at + 1.0]
    assert early == [], f"requests inside the Retry-After window: {early}"
    assert "cites" in after[0][1] and after[0][2] == 200  # the retried request went first
    assert sorted(p for _, p, _ in after[1:]) == sorted(f"/works/W{i}" for i in range(2, 12))


def test_retry_after_accepts_seconds_and_http_dates():
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past: go now
