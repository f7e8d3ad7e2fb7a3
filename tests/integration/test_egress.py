"""DNS rebinding: the HTTP client connects to the address the egress gate checked, never to what
the name resolves to a moment later.

A resolver stand-in answers one name differently the first time and every later time; a spy on
127.0.0.2 counts every connection (any count above zero is a leak). Real sockets, real servers on
the loopback network, real httpx/httpcore, real Chromium for the browser path.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import ssl
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from fixtures.browser import Spy, fast_politeness, quick
from lyra_core.urls import parse_networks
from lyra_resources.web.browser import BrowserSession
from lyra_resources.web.egress import EgressGate, gated_client

# The address the gate checks and lets through: 127.0.0.3, allowed by name (allowed_networks), so
# every connection of these tests stays on this machine; the rebound address, 127.0.0.2, is not.
CHECKED = "127.0.0.3"
ALLOW_CHECKED = ["127.0.0.3/32"]


class FlippingResolver:
    """getaddrinfo where ``name`` resolves to ``first`` once, then to ``then``; other names as usual."""

    def __init__(self, name: str, first: str, then: str) -> None:
        self.name, self.first, self.then = name, first, then
        self.real = socket.getaddrinfo
        self.lookups = 0

    def __call__(self, host, port, family=0, type=0, proto=0, flags=0):
        text = host.decode() if isinstance(host, bytes) else host
        if text != self.name:
            return self.real(host, port, family, type, proto, flags)
        self.lookups += 1
        address = self.first if self.lookups == 1 else self.then
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port)))]


class HostServer:
    """An HTTP(S) server on 127.0.0.3:``port`` that records the Host header (and TLS server name)."""

    def __init__(self, port: int, tls: ssl.SSLContext | None = None) -> None:
        self.hosts: list[str] = []
        self.server_names: list[str | None] = []
        recorded = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                recorded.hosts.append(self.headers.get("Host", ""))
                body = b"<html><head><title>Pinned</title></head><body><p>reached the checked address</p></body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.3", port), Handler)
        if tls is not None:
            tls.sni_callback = lambda sock, name, ctx: recorded.server_names.append(name)
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def spy():
    watcher = Spy()
    yield watcher
    watcher.close()


def settle(spy: Spy) -> int:
    time.sleep(0.3)  # a leaked connection is counted by the spy's own thread
    return spy.connections


def test_a_name_that_rebinds_after_the_check_is_never_dialled_again(spy, monkeypatch):
    server = HostServer(spy.port)
    resolver = FlippingResolver("rebind.test", first=CHECKED, then="127.0.0.2")
    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    url = f"http://rebind.test:{spy.port}/secret"

    async def run():
        gate = EgressGate(allowed_networks=parse_networks(ALLOW_CHECKED))
        assert await gate.refusal(url) is None  # the check saw an allowed address
        assert await EgressGate(allowed_networks=parse_networks(ALLOW_CHECKED)).refusal(
            url
        )  # the rebound one is refused
        async with gated_client(gate, timeout=httpx.Timeout(2.0)) as client:
            return await client.get(url)

    try:
        response = asyncio.run(run())
    finally:
        server.close()
    assert response.status_code == 200 and server.hosts == [f"rebind.test:{spy.port}"]
    assert settle(spy) == 0
    assert resolver.lookups == 2  # once for the check, once for the second gate: never by the client


def test_the_browser_never_reaches_a_rebound_private_address(spy, monkeypatch):
    server = HostServer(spy.port)
    resolver = FlippingResolver("rebind.test", first=CHECKED, then="127.0.0.2")
    monkeypatch.setattr(socket, "getaddrinfo", resolver)

    async def run():
        settings = quick(page_timeout_s=3, allowed_networks=ALLOW_CHECKED)
        async with BrowserSession(settings, qps=fast_politeness) as session:
            return await session.fetch(f"http://rebind.test:{spy.port}/secret")

    try:
        page = asyncio.run(run())
    finally:
        server.close()
    assert settle(spy) == 0, page
    assert page.status == "ok" and "reached the checked address" in page.html, page


def test_a_client_without_a_checked_address_connects_nowhere(spy):
    async def run():
        async with gated_client(EgressGate(allow_private=True)) as client:
            with pytest.raises(httpx.ConnectError, match="not checked by the egress gate"):
                await client.get(f"http://127.0.0.2:{spy.port}/")  # no gate.refusal first: no pin

    asyncio.run(run())
    assert settle(spy) == 0


def test_pinned_requests_reach_the_checked_address_under_the_hostname(spy, monkeypatch):
    """Private addresses allowed: the page comes from the address the gate checked (127.0.0.3),
    with the URL's hostname in the Host header, though the name now points at the spy."""
    server = HostServer(spy.port)
    resolver = FlippingResolver("site.test", first="127.0.0.3", then="127.0.0.2")
    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    url = f"http://site.test:{spy.port}/page"

    async def run():
        async with BrowserSession(quick(allow_private_addresses=True), qps=fast_politeness) as session:
            return await session.fetch(url)

    try:
        page = asyncio.run(run())
    finally:
        server.close()
    assert page.status == "ok" and "reached the checked address" in page.html, page
    assert server.hosts == [f"site.test:{spy.port}"]
    assert settle(spy) == 0


def self_signed(folder: Path, name: str) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            f"/CN={name}",
            "-addext",
            f"subjectAltName=DNS:{name}",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_tls_to_a_pinned_address_verifies_the_hostname_and_sends_it_as_sni(spy, monkeypatch, tmp_path):
    cert, key = self_signed(tmp_path, "site.test")
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    server = HostServer(spy.port, tls=tls)
    monkeypatch.setattr(
        socket, "getaddrinfo", FlippingResolver("site.test", first="127.0.0.3", then="127.0.0.2")
    )
    trusted = ssl.create_default_context(cafile=str(cert))

    async def run():
        gate = EgressGate(allowed_networks=parse_networks(["127.0.0.3/32"]))
        results = []
        for host in ("site.test", "127.0.0.3"):  # the same server: its certificate names site.test only
            url = f"https://{host}:{spy.port}/"
            assert await gate.refusal(url) is None
            async with gated_client(gate, verify=trusted, timeout=5) as client:
                try:
                    results.append((await client.get(url)).status_code)
                except httpx.ConnectError as exc:
                    results.append(str(exc))
        return results

    try:
        by_name, by_address = asyncio.run(run())
    finally:
        server.close()
    assert by_name == 200 and server.server_names[0] == "site.test"
    assert server.hosts == [f"site.test:{spy.port}"]
    assert "certificate" in by_address.lower() or "match" in by_address.lower(), by_address
    assert settle(spy) == 0


# IPv6 addresses that lead to a loopback, private or link-local IPv4 address.
IPV6_CARRYING_PRIVATE = [
    "::7f00:1",  # IPv4-compatible 127.0.0.1
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",  # IPv4-mapped
    "::ffff:0:7f00:1",  # IPv4-translated (SIIT)
    "64:ff9b::7f00:1",
    "64:ff9b::a9fe:a9fe",  # NAT64 well-known prefix: 127.0.0.1, 169.254.169.254
    "64:ff9b:1::7f00:1",
    "64:ff9b:1:ffff::808:808",  # NAT64 local-use prefix: never public
    "2002:7f00:1::",
    "2002:c0a8:101::1",  # 6to4: 127.0.0.1, 192.168.1.1
    "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo, client 127.0.0.1 (stored inverted)
    "fec0::1",  # site-local
]
IPV6_CARRYING_PUBLIC = ["64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8", "2606:4700:4700::1111"]


class AaaaResolver:
    """getaddrinfo where each ``<n>.v6.test`` answers one IPv6 address of ``addresses`` (an AAAA record)."""

    def __init__(self, addresses: list[str]) -> None:
        self.addresses = addresses
        self.real = socket.getaddrinfo

    def __call__(self, host, port, family=0, type=0, proto=0, flags=0):
        text = host.decode() if isinstance(host, bytes) else host
        if not text.endswith(".v6.test"):
            return self.real(host, port, family, type, proto, flags)
        address = self.addresses[int(text.split(".")[0])]
        return [(socket.AF_INET6, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port), 0, 0))]


def test_ipv6_forms_of_private_addresses_are_refused_by_the_gate_and_never_dialled(spy, monkeypatch):
    addresses = IPV6_CARRYING_PRIVATE + IPV6_CARRYING_PUBLIC
    monkeypatch.setattr(socket, "getaddrinfo", AaaaResolver(addresses))
    private = len(IPV6_CARRYING_PRIVATE)

    async def run():
        gate = EgressGate()
        literal = [await gate.refusal(f"http://[{a}]:{spy.port}/") for a in addresses]
        named = [await gate.refusal(f"http://{i}.v6.test:{spy.port}/") for i in range(len(addresses))]
        failures = []
        async with gated_client(gate, timeout=httpx.Timeout(2.0)) as client:
            for i in range(private):  # the client dials nothing the gate refused
                with pytest.raises(httpx.ConnectError, match="not checked by the egress gate") as caught:
                    await client.get(f"http://{i}.v6.test:{spy.port}/")
                failures.append(str(caught.value))
        return literal, named, failures

    literal, named, failures = asyncio.run(run())
    for answers in (literal, named):
        refused = [addresses[i] for i, a in enumerate(answers) if a and a[0] == "refused"]
        assert refused == IPV6_CARRYING_PRIVATE
        assert all("private, loopback, link-local or reserved" in a[1] for a in answers[:private])
    assert len(failures) == private
    assert settle(spy) == 0
