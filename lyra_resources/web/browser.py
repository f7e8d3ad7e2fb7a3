"""The browser: Playwright's async API driving Chromium for search result pages and page fetches.

How a page is fetched, and why:
- Chromium renders and runs scripts, but never touches the network itself. It is launched with a
  proxy that refuses every connection, and every request it makes is intercepted
  (``BrowserContext.route``) and answered by Lyra's own HTTP client after the egress gate has
  passed the URL: http(s) only, not a blocked domain, every resolved address public (or allowed
  by settings (``lyra_resources.web.browser_routing``). That client connects to the very addresses
  the gate checked, never resolving the name again (``lyra_resources.web.egress``: no DNS rebinding
  between check and connection). Routing alone is not enough: Chromium follows redirects of a
  continued request without routing them again, and opens preconnect and WebSocket sockets that
  are never routed; the dead proxy catches those (checked in tests/integration/test_browser.py).
- Redirects are followed one hop at a time, each hop through the gate, so a public page that
  redirects to a private address is refused. Response bodies are cut at ``max_page_bytes``.
- One browser per session, started at the first URL that passes the gate (so a run with nothing
  fetchable, e.g. offline, never launches one), a fresh temporary profile, a pool of
  ``concurrency`` reused pages, per-domain politeness (queries per second from the domain policy)
  before each navigation.

The Dagster resource that configures a session is ``lyra_resources.web.browser_resource.WebBrowser``.
The pure parts live in ``lyra_core``: URL checks in ``lyra_core.urls``, page extraction in
``lyra_core.page_extraction``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import socket
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, Self

import httpx
from pydantic import BaseModel, Field

from lyra_core.urls import parse_networks, url_domain
from lyra_resources.settings.services import BrowserSettings
from lyra_resources.web.browser_routing import MAX_REDIRECTS, PageState, RequestRouter
from lyra_resources.web.egress import EgressGate, gated_client

log = logging.getLogger(__name__)

SYSTEM_CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
INSTALL_HINT = (
    "install Debian's Chromium (`apt-get install chromium`, or run `scripts/install-system-deps.sh`), "
    "or Playwright's own build (`playwright install chromium`), or set browser.executable_path in "
    "config/settings.yaml"
)
# Flags that keep Chromium from calling home on a closed network, plus a fresh profile (Playwright
# adds a temporary --user-data-dir of its own for launch_persistent_context).
BASE_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-gpu",
    "--disable-default-apps",
    "--disable-extensions",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
)

FetchStatus = Literal["ok", "http_error", "refused", "blocked", "unsupported", "timeout", "error"]


class BrowserUnavailable(RuntimeError):
    """No usable Chromium or Playwright: the message says how to install one."""


class FetchedPage(BaseModel):
    """One navigation: where it ended, how it went, and the rendered HTML (cut at the size cap)."""

    url: str
    final_url: str
    status: FetchStatus
    error: str | None = None
    http_status: int | None = None
    content_type: str | None = None
    html: str = ""
    truncated: bool = False
    redirects: list[str] = Field(default_factory=list, description="URLs left by redirects, in order")
    refused_requests: list[str] = Field(default_factory=list, description="sub-requests the gate refused")
    fetched_at: datetime


def find_chromium(configured: str = "", bundled: str | None = None) -> str:
    """The Chromium to launch: the configured path, else Playwright's bundled build when it is
    installed, else the system's; a clear error (with how to install one) when there is none."""
    if configured:
        if Path(configured).is_file() and os.access(configured, os.X_OK):
            return configured
        raise BrowserUnavailable(
            f"browser.executable_path {configured!r} is not an executable file; "
            f"fix the setting, or clear it and {INSTALL_HINT}"
        )
    candidates = [bundled] if bundled else []
    candidates += [*SYSTEM_CHROMIUM, *(shutil.which(n) or "" for n in ("chromium", "chromium-browser"))]
    for path in candidates:
        if path and Path(path).is_file() and os.access(path, os.X_OK):
            return path
    tried = ", ".join(dict.fromkeys(p for p in candidates if p))
    raise BrowserUnavailable(
        f"no Chromium found for browser search and page fetching (tried {tried}); {INSTALL_HINT}"
    )


class DomainThrottle:
    """Spaces navigations to one domain ``1/qps`` apart (the domain policy's politeness)."""

    def __init__(self, qps: Callable[[str], float] | None = None) -> None:
        self.qps = qps or (lambda domain: 1.0)
        self._next: dict[str, float] = {}

    async def wait(self, domain: str) -> float:
        loop = asyncio.get_running_loop()
        now = loop.time()
        slot = max(now, self._next.get(domain, 0.0))
        self._next[domain] = slot + 1.0 / max(self.qps(domain), 1e-6)
        if slot > now:
            await asyncio.sleep(slot - now)
        return slot - now


class BrowserSession:
    """One Chromium for a run of searches and fetches; use as ``async with BrowserSession(...)``."""

    def __init__(
        self,
        settings: BrowserSettings,
        *,
        is_blocked: Callable[[str], bool] | None = None,
        qps: Callable[[str], float] | None = None,
    ) -> None:
        self.settings = settings
        self.gate = EgressGate(
            allow_private=settings.allow_private_addresses,
            allowed_networks=parse_networks(settings.allowed_networks),
            is_blocked=is_blocked,
        )
        self.throttle = DomainThrottle(qps)
        self.executable: str | None = None
        self._playwright = None
        self._context = None
        self._http: httpx.AsyncClient | None = None
        self._profile: str | None = None
        self._dead_port: socket.socket | None = None
        self._pages: asyncio.Queue = asyncio.Queue()
        self._router: RequestRouter | None = None
        self._start_lock = asyncio.Lock()
        self._start_error: BrowserUnavailable | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        return self  # Chromium starts at the first URL that passes the gate: none, no browser

    async def start(self) -> None:
        """Start Playwright and Chromium (once); BrowserUnavailable says how to install what is missing."""
        async with self._start_lock:
            if self._start_error is not None:  # one failed start is final: concurrent fetches share it
                raise self._start_error
            if self._context is not None:
                return
            try:
                try:
                    from playwright.async_api import async_playwright
                except ImportError as exc:  # a trimmed install
                    raise BrowserUnavailable(
                        f"the Python package playwright is not installed "
                        f"(pip install playwright); then {INSTALL_HINT}"
                    ) from exc
                self._playwright = await async_playwright().start()
                bundled = self._playwright.chromium.executable_path
                self.executable = find_chromium(self.settings.executable_path, bundled)
                await self._launch()
            except BrowserUnavailable as exc:
                self._start_error = exc
                await self.aclose()
                raise
            except BaseException:
                await self.aclose()
                raise

    @property
    def started(self) -> bool:
        return self._context is not None

    async def __aexit__(self, *exc_info) -> None:
        await self.aclose()

    async def _launch(self) -> None:
        from playwright.async_api import Error as PlaywrightError

        # A port we hold but never listen on: Chromium's own connections are refused at once.
        self._dead_port = socket.socket()
        self._dead_port.bind(("127.0.0.1", 0))
        dead = self._dead_port.getsockname()[1]
        args = [*BASE_ARGS, f"--proxy-server=http://127.0.0.1:{dead}", "--proxy-bypass-list=<-loopback>"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium's sandbox refuses to run as root
        self._profile = tempfile.mkdtemp(prefix="lyra-chromium-")
        cfg = self.settings
        try:
            self._context = await self._playwright.chromium.launch_persistent_context(
                self._profile,
                executable_path=self.executable,
                headless=cfg.headless,
                args=args,
                service_workers="block",
                accept_downloads=False,
                user_agent=cfg.user_agent or None,
                timeout=max(cfg.page_timeout_s, 30) * 1000,
            )
        except PlaywrightError as exc:
            raise BrowserUnavailable(
                f"Chromium at {self.executable} did not start: {exc.message.splitlines()[0]}; {INSTALL_HINT}"
            ) from exc
        timeout = httpx.Timeout(cfg.page_timeout_s, connect=min(10.0, cfg.page_timeout_s))
        self._http = gated_client(self.gate, timeout=timeout)  # dials only the addresses the gate checked
        self._router = RequestRouter(self.gate, self._http, cfg)
        await self._context.route("**/*", self._router.handle)
        pages = list(self._context.pages)
        while len(pages) < cfg.concurrency:
            pages.append(await self._context.new_page())
        for page in pages[: cfg.concurrency]:
            page.set_default_timeout(cfg.page_timeout_s * 1000)
            self._router.add_page(page)
            self._pages.put_nowait(page)

    async def aclose(self) -> None:
        for closer in (
            self._context and self._context.close,
            self._http and self._http.aclose,
            self._playwright and self._playwright.stop,
        ):
            if closer is not None:
                try:
                    await closer()
                except Exception as exc:  # noqa: BLE001 - closing must not hide the error that ended the session
                    log.debug("browser close step failed: %s", exc)
        self._context = self._http = self._playwright = None
        if self._dead_port is not None:
            self._dead_port.close()
            self._dead_port = None
        if self._profile:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None

    # -- fetching --------------------------------------------------------------------------------

    async def fetch(self, url: str) -> FetchedPage:
        """Load ``url`` in a pooled page and return its rendered HTML; never raises for the page's
        own failures (refused, blocked, timeout, HTTP errors): they are the row's status."""
        if refusal := await self.gate.refusal(url):
            return self._done(url, url, refusal[0], refusal[1], [])
        await self.start()
        page = await self._pages.get()
        try:
            return await self._fetch_on(page, url)
        except (asyncio.CancelledError, BrowserUnavailable):
            raise
        except Exception as exc:  # noqa: BLE001 - a crashed tab or a closed target fails this page only
            return self._done(
                url, url, "error", f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}", []
            )
        finally:
            await self._park(page)
            self._pages.put_nowait(page)

    async def _park(self, page) -> None:
        """Leave the page on about:blank, so no script of the last site runs on while it waits."""
        try:
            await page.goto("about:blank", timeout=5000)
        except Exception as exc:  # noqa: BLE001 - a page that cannot park is still reusable
            log.debug("could not park a page: %s", exc)

    def _done(
        self,
        url: str,
        current: str,
        status: FetchStatus,
        error: str | None,
        redirects: list[str],
        state: PageState | None = None,
        **fields,
    ) -> FetchedPage:
        return FetchedPage(
            url=url,
            final_url=current,
            status=status,
            error=error,
            redirects=redirects,
            http_status=state.http_status if state else None,
            content_type=state.content_type if state else None,
            refused_requests=list(state.refused) if state else [],
            fetched_at=datetime.now(UTC).replace(tzinfo=None),
            **fields,
        )

    async def _fetch_on(self, page, url: str) -> FetchedPage:
        from playwright.async_api import Error as PlaywrightError
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        cfg = self.settings
        state = self._router.state(page)
        current, redirects = url, []
        for _ in range(MAX_REDIRECTS + 1):
            if refusal := await self.gate.refusal(current):
                status, reason = refusal
                if redirects:
                    reason = f"redirect from {redirects[-1]} to {current} refused: {reason}"
                return self._done(url, current, status, reason, redirects)
            await self.throttle.wait(url_domain(current))
            state.reset()
            try:
                await page.goto(current, wait_until="domcontentloaded", timeout=cfg.page_timeout_s * 1000)
            except PlaywrightTimeout:
                return self._done(
                    url, current, "timeout", f"no page within {cfg.page_timeout_s:g}s", redirects, state
                )
            except PlaywrightError as exc:
                if state.failure:
                    return self._done(url, current, state.failure[0], state.failure[1], redirects, state)
                return self._done(url, current, "error", exc.message.splitlines()[0], redirects, state)
            if state.failure:
                return self._done(url, current, state.failure[0], state.failure[1], redirects, state)
            if state.redirect_to is None:
                break
            redirects.append(current)
            current = state.redirect_to
        else:
            return self._done(url, current, "error", f"more than {MAX_REDIRECTS} redirects", redirects, state)

        if state.unsupported:
            return self._done(
                url,
                current,
                "unsupported",
                f"content type {state.content_type} is not read",
                redirects,
                state,
            )
        if cfg.settle_s:
            try:  # scripts that fill the page in after DOMContentLoaded get a short while
                await page.wait_for_load_state("load", timeout=cfg.settle_s * 1000)
            except PlaywrightTimeout:
                pass
        try:
            html = await page.content()
        except PlaywrightError:  # the page navigated itself meanwhile; read what it became
            await page.wait_for_load_state("domcontentloaded")
            html = await page.content()
        truncated = state.truncated
        encoded = html.encode("utf-8", "ignore")
        if len(encoded) > cfg.max_page_bytes:  # scripts can grow the DOM past the response cap
            html, truncated = encoded[: cfg.max_page_bytes].decode("utf-8", "ignore"), True
        final = page.url if page.url.startswith(("http://", "https://")) else current
        status: FetchStatus = "http_error" if (state.http_status or 200) >= 400 else "ok"
        error = f"HTTP {state.http_status}" if status == "http_error" else None
        return self._done(url, final, status, error, redirects, state, html=html, truncated=truncated)
