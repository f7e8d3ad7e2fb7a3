"""The egress gate, and an HTTP client that connects only to the addresses the gate checked.

Checking a name's addresses and then letting the HTTP client resolve the name again leaves a gap
(DNS rebinding): a resolver can answer a public address to the check and 127.0.0.1 or
169.254.169.254 to the connection. So the gate remembers the addresses it passed for each
(host, port), and ``gated_client`` dials one of exactly those. The URL keeps its hostname, so the
Host header, the TLS server name (SNI) and certificate verification are all for the hostname.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Callable, Iterable
from typing import Literal
from urllib.parse import urlsplit

import httpcore
import httpx

from lyra_core.urls import IpNetwork, address_refusal, url_domain, url_refusal

Refusal = tuple[Literal["refused", "blocked", "error"], str]


def host_key(host: str, port: int) -> tuple[str, int]:
    """(host, port) as both the gate and the HTTP client spell it: lower-case, IDNA-encoded,
    no brackets around an IPv6 literal, no trailing dot."""
    name = host.strip("[]").rstrip(".").lower()
    try:
        name = name.encode("idna").decode("ascii")
    except UnicodeError:
        pass  # not encodable: it will not resolve, and has no pin
    return name, port


class EgressGate:
    """Decides whether a URL may be requested: scheme, blocked domain, resolved addresses.

    A name is resolved once per gate (one browser session) and the addresses that passed are
    kept as the only ones ``gated_client`` may connect to for that name and port.
    """

    def __init__(
        self,
        *,
        allow_private: bool = False,
        allowed_networks: list[IpNetwork] | None = None,
        is_blocked: Callable[[str], bool] | None = None,
    ) -> None:
        self.allow_private = allow_private
        self.allowed_networks = allowed_networks or []
        self.is_blocked = is_blocked or (lambda domain: False)
        self._resolved: dict[tuple[str, int], list[str]] = {}
        self._passed: dict[tuple[str, int], list[str]] = {}

    async def resolve(self, host: str, port: int) -> list[str]:
        key = (host, port)
        if key not in self._resolved:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except (socket.gaierror, UnicodeError) as exc:
                raise OSError(f"cannot resolve {host}: {exc}") from exc
            self._resolved[key] = list(dict.fromkeys(str(info[4][0]) for info in infos))
        return self._resolved[key]

    async def refusal(self, url: str) -> Refusal | None:
        """None when ``url`` may be requested, else ('refused' | 'blocked' | 'error', why)."""
        if reason := url_refusal(url):
            return "refused", reason
        domain = url_domain(url)
        if self.is_blocked(domain):
            return "blocked", f"{domain} is blocked by the domain policy"
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        try:
            addresses = await self.resolve(host, port)
        except OSError as exc:
            return "error", str(exc)
        if reason := address_refusal(
            host, addresses, allow_private=self.allow_private, allowed_networks=self.allowed_networks
        ):
            return "refused", reason
        self._passed[host_key(host, port)] = addresses
        return None

    def pinned(self, host: str, port: int) -> list[str]:
        """The addresses checked and passed for ``host``:``port``; [] when none were."""
        return self._passed.get(host_key(host, port), [])


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, except that a TCP connection to a name goes to an address the
    gate passed for it, never to whatever the name resolves to now; no pin, no connection."""

    def __init__(self, gate: EgressGate, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.gate = gate
        self.inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = self.gate.pinned(host, port)
        if not addresses:
            raise httpcore.ConnectError(f"{host}:{port} was not checked by the egress gate; not connecting")
        failure: Exception | None = None
        for address in addresses:  # every one of them passed the gate
            try:
                return await self.inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not reachable through the egress gate")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class PinnedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport over a connection pool that dials through ``PinnedBackend``."""

    def __init__(
        self, gate: EgressGate, *, verify: ssl.SSLContext | bool = True, limits: httpx.Limits | None = None
    ) -> None:
        limits = limits or httpx.Limits(max_connections=100, max_keepalive_connections=20)
        super().__init__(verify=verify, trust_env=False, limits=limits)
        ssl_context = httpx.create_ssl_context(verify=verify, trust_env=False)
        # The pool httpx built resolves names itself; this one only connects to pinned addresses.
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=PinnedBackend(gate),
        )


def gated_client(gate: EgressGate, *, verify: ssl.SSLContext | bool = True, **options) -> httpx.AsyncClient:
    """An httpx client that never follows redirects, ignores proxy settings of the environment,
    and connects only to addresses ``gate`` passed (call ``gate.refusal(url)`` first)."""
    return httpx.AsyncClient(
        transport=PinnedTransport(gate, verify=verify), follow_redirects=False, trust_env=False, **options
    )
