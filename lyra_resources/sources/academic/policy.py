"""How Lyra talks to academic APIs: one polite, cached, retrying JSON client shared by all of them.

- Rate limit: request starts are spaced 1/rps apart per API base URL, across every client in the
  process (S2 allows about 1 request/s without a key). Cached answers cost no request.
- Retries: 429, 5xx and broken reads are retried with exponential backoff, waiting exactly what
  ``Retry-After`` asks when the server says; bounded by ``max_attempts`` and ``max_retry_wait_s``.
  A ``Retry-After`` holds the whole API: no request to it, concurrent ones included, starts before
  the window ends, and the request that was told to wait goes first after it.
- Connection failures (no network, DNS, refused) are not retried: the client remembers the API is
  unreachable and every later call fails at once, so a task without network fails in milliseconds.
- Cache: answers are kept on disk (see ``cache.py``) and served again without the network.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Self, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, Field

from lyra_resources.sources.academic.cache import CachedResponse, HttpCache
from lyra_resources.sources.academic.errors import ApiStatusError, MalformedResponse, SourceUnreachable

log = logging.getLogger(__name__)
T = TypeVar("T")

# Sent with every request but kept out of cache keys and error messages.
SECRET_PARAMS = frozenset({"mailto", "api_key"})
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
UNREACHABLE = (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol)
_TRANSIENT = (
    httpx.ReadTimeout,
    httpx.WriteTimeout,
    httpx.PoolTimeout,
    httpx.ReadError,
    httpx.WriteError,
    httpx.RemoteProtocolError,
)


class HttpPolicy(BaseModel):
    """Everything about one API's connection that settings and the environment decide."""

    model_config = ConfigDict(frozen=True)
    api: str = Field(description="the API's name in messages: 'Semantic Scholar', 'OpenAlex'")
    base_url: str
    requests_per_second: float = Field(1.0, gt=0)
    connect_timeout_s: float = Field(3.0, gt=0)
    read_timeout_s: float = Field(30.0, gt=0)
    max_attempts: int = Field(4, ge=1)
    max_retry_wait_s: float = Field(60.0, ge=0)
    backoff_s: float = Field(1.0, ge=0)
    headers: dict[str, str] = Field(default_factory=dict)
    params: dict[str, str] = Field(
        default_factory=dict, description="sent with every request (mailto, api_key)"
    )
    user_agent: str = "lyra/0.1 (https://github.com/lyra-evidence)"


class RateLimiter:
    """Spaces request starts ``1/rps`` apart, and starts none inside a window the server asked
    for (``hold``). Thread-safe and loop-free, so one limiter serves every event loop of the
    process (each asset runs its own ``asyncio.run``)."""

    def __init__(self, requests_per_second: float) -> None:
        self.interval = 1.0 / requests_per_second
        self._next = 0.0  # the next free slot
        self._not_before = 0.0  # the end of the last hold
        self._epoch = 0  # bumped by each hold: slots handed out before it are void
        self._lock = threading.Lock()

    def _reserve(self) -> tuple[float, int]:
        with self._lock:
            now = time.monotonic()
            slot = max(now, self._next, self._not_before)
            self._next = slot + self.interval
            return slot - now, self._epoch

    def reserve(self) -> float:
        """Seconds to wait before the caller's slot."""
        return self._reserve()[0]

    def hold(self, seconds: float) -> None:
        """Nobody starts a request for ``seconds`` (the server asked us to back off): every slot
        already handed out is void, and slots are handed out again from the end of the hold, the
        first to whoever asks next (the request that was told to wait, retrying at once)."""
        with self._lock:
            until = time.monotonic() + seconds
            if until <= self._not_before:
                return
            self._not_before = self._next = until
            self._epoch += 1

    async def wait(self) -> float:
        """Sleep until the caller's slot; a hold that came meanwhile sends it to a slot after the hold."""
        waited = 0.0
        while True:
            delay, epoch = self._reserve()
            if delay > 0:
                await asyncio.sleep(delay)
                waited += delay
            with self._lock:
                if epoch == self._epoch:
                    return waited


_limiters: dict[tuple[str, float], RateLimiter] = {}
_limiters_lock = threading.Lock()


def shared_limiter(base_url: str, requests_per_second: float) -> RateLimiter:
    with _limiters_lock:
        key = (base_url.rstrip("/"), requests_per_second)
        if key not in _limiters:
            _limiters[key] = RateLimiter(requests_per_second)
        return _limiters[key]


def retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds: a number of seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _error_text(status: int, text: str) -> str:
    """The API's own message ({"error": …} / {"message": …}) or the start of the body."""
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict):
        for key in ("error", "message", "detail"):
            if isinstance(body.get(key), str):
                return f"HTTP {status}: {body[key]}"
    snippet = " ".join(text.split())[:160]
    return f"HTTP {status}" + (f": {snippet}" if snippet else "")


@dataclass
class ClientStats:
    requests: int = 0
    cache_hits: int = 0
    stale_hits: int = 0
    retries: int = 0
    waited_s: float = 0.0


class ApiClient:
    """JSON over HTTP with the policy above. ``get_json``/``post_json`` return the decoded body,
    or None for 404 (unknown id); every other failure raises an AcademicApiError subclass."""

    def __init__(
        self,
        policy: HttpPolicy,
        cache: HttpCache | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.policy = policy
        self.cache = cache
        self.stats = ClientStats()
        self.unreachable: str | None = None
        self._limiter = shared_limiter(policy.base_url, policy.requests_per_second)
        self._http = httpx.AsyncClient(
            timeout=httpx.Timeout(policy.read_timeout_s, connect=policy.connect_timeout_s),
            headers={"User-Agent": policy.user_agent, "Accept": "application/json", **policy.headers},
            transport=transport,
            follow_redirects=True,
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- public calls --------------------------------------------------------------------------

    async def get_json(
        self, path: str, params: dict[str, Any] | None = None, check: Callable[[Any], T] | None = None
    ) -> T | Any | None:
        """The decoded answer (None for 404); ``check`` parses it, and an answer it rejects
        (raising MalformedResponse) is never cached, so a bad answer is not replayed."""
        return await self._call("GET", path, params or {}, None, check)

    async def post_json(
        self, path: str, params: dict[str, Any] | None, body: Any, check: Callable[[Any], T] | None = None
    ) -> T | Any | None:
        raw = json.dumps(body, separators=(",", ":")).encode()
        return await self._call("POST", path, params or {}, raw, check)

    # -- machinery -----------------------------------------------------------------------------

    def _url(self, path: str, params: dict[str, Any], *, secrets: bool) -> httpx.URL:
        items = [(k, str(v)) for k, v in params.items() if v is not None]
        if secrets:
            items += [(k, v) for k, v in self.policy.params.items() if v]
        # sorted, so the cache key does not depend on the order a caller listed parameters in
        return httpx.URL(self.policy.base_url.rstrip("/") + path, params=sorted(items))

    async def _call(
        self,
        method: str,
        path: str,
        params: dict[str, Any],
        body: bytes | None,
        check: Callable[[Any], Any] | None,
    ) -> Any | None:
        endpoint = f"{method} {path}"
        public_url = self._url(path, params, secrets=False)
        key = HttpCache.key(method, str(public_url), body)
        cached = self.cache.get(key) if self.cache else None
        if cached and cached[1]:
            self.stats.cache_hits += 1
            return self._checked(
                check, self._decode(endpoint, cached[0].status, cached[0].body, cached[0].content_type)
            )
        try:
            if self.unreachable:  # found out earlier in this run: do not wait for a timeout again
                raise SourceUnreachable(self.policy.api, endpoint, self.unreachable)
            response = await self._send(method, self._url(path, params, secrets=True), body, endpoint)
        except (SourceUnreachable, ApiStatusError) as exc:
            if not cached:
                raise
            # an old answer beats none when the API is down
            stored = datetime.fromtimestamp(cached[0].stored_at, UTC).isoformat(timespec="seconds")
            log.warning("%s; serving the cached answer from %s", exc, stored)
            self.stats.stale_hits += 1
            return self._checked(
                check, self._decode(endpoint, cached[0].status, cached[0].body, cached[0].content_type)
            )
        text = response.text
        content_type = response.headers.get("content-type")
        result = self._checked(check, self._decode(endpoint, response.status_code, text, content_type))
        if self.cache:  # only after it parsed: a malformed answer must not be replayed
            self.cache.put(
                key,
                CachedResponse(
                    method=method,
                    url=str(public_url),
                    status=response.status_code,
                    content_type=content_type,
                    body=text,
                    stored_at=time.time(),
                ),
            )
        return result

    @staticmethod
    def _checked(check: Callable[[Any], Any] | None, data: Any | None) -> Any | None:
        return check(data) if check is not None and data is not None else data

    def _decode(self, endpoint: str, status: int, text: str, content_type: str | None) -> Any | None:
        if status == 404:
            return None
        if status != 200:
            raise ApiStatusError(self.policy.api, endpoint, _error_text(status, text), status)
        try:
            return json.loads(text)
        except ValueError as exc:
            snippet = " ".join(text.split())[:80]
            raise MalformedResponse(
                self.policy.api,
                endpoint,
                f"answer is not JSON ({content_type or 'no content type'}): {snippet!r}",
            ) from exc

    async def _send(self, method: str, url: httpx.URL, body: bytes | None, endpoint: str) -> httpx.Response:
        policy = self.policy
        waited = 0.0
        last_status: int | None = None
        for attempt in range(1, policy.max_attempts + 1):
            await self._limiter.wait()
            self.stats.requests += 1
            retry_after: float | None = None
            try:
                response = await self._http.request(
                    method,
                    url,
                    content=body,
                    headers={"Content-Type": "application/json"} if body is not None else None,
                )
            except UNREACHABLE as exc:
                self.unreachable = (
                    f"cannot connect to {url.host} ({type(exc).__name__}: {exc or 'no detail'})"
                )
                raise SourceUnreachable(policy.api, endpoint, self.unreachable) from exc
            except _TRANSIENT as exc:
                problem = f"{type(exc).__name__}: {exc or 'no detail'}"
            else:
                if response.status_code not in RETRY_STATUSES:
                    return response
                last_status = response.status_code
                problem = _error_text(response.status_code, response.text)
                retry_after = retry_after_seconds(response.headers.get("Retry-After"))
            if attempt == policy.max_attempts:
                raise ApiStatusError(
                    policy.api, endpoint, f"gave up after {attempt} attempts; last: {problem}", last_status
                )
            # Retry-After is obeyed exactly; our own backoff doubles from backoff_s
            delay = retry_after if retry_after is not None else policy.backoff_s * 2 ** (attempt - 1)
            if waited + delay > policy.max_retry_wait_s:
                raise ApiStatusError(
                    policy.api,
                    endpoint,
                    f"{problem}; retrying needs {delay:.1f}s more but only "
                    f"{max(0.0, policy.max_retry_wait_s - waited):.1f}s of the {policy.max_retry_wait_s:.0f}s "
                    "retry budget is left",
                    last_status,
                )
            log.info("%s %s: %s; retry %d in %.1fs", policy.api, endpoint, problem, attempt, delay)
            self.stats.retries += 1
            self.stats.waited_s += delay
            waited += delay
            if retry_after is not None:
                # The whole API is asked to back off, not only this call: no request to it starts
                # before the window ends, and this one takes the first slot after it (the loop's
                # limiter.wait comes next, with no await in between), not a slot behind every
                # request queued meanwhile.
                self._limiter.hold(delay)
            else:
                await asyncio.sleep(delay)  # our own backoff: this call only
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises
