"""Chromium's requests, answered by Lyra: every request the browser makes is intercepted
(``BrowserContext.route``) and either refused or sent by Lyra's own HTTP client, after the egress
gate has passed its URL.

A page's own navigation is answered with its document, except that a redirect is handed back to
the fetch loop (which takes it one gated hop at a time) instead of being followed by Chromium.
Sub-requests (scripts, XHR) follow their redirects here, each hop through the gate. Requests a
text extractor has no use for (images, fonts, sub-frames) are refused; bodies are cut at
``max_page_bytes``.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from urllib.parse import urljoin

import httpx

from lyra_resources.settings.services import BrowserSettings
from lyra_resources.web.egress import EgressGate, Refusal

log = logging.getLogger(__name__)

# Requests a text extractor has no use for; refusing them also saves bandwidth and politeness.
SKIPPED_RESOURCE_TYPES = frozenset(
    {
        "image",
        "media",
        "font",
        "stylesheet",
        "manifest",
        "texttrack",
        "ping",
        "eventsource",
        "websocket",
        "beacon",
        "other",
    }
)
HTML_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/xml", "text/xml")
MAX_REDIRECTS = 10
# Headers of Chromium's request that must not reach the origin as they are.
_DROP_REQUEST_HEADERS = {
    "host",
    "content-length",
    "accept-encoding",
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "transfer-encoding",
    "upgrade",
}
# Headers of the origin's response that no longer describe the body handed to Chromium.
_DROP_RESPONSE_HEADERS = {
    "content-encoding",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
}


class PageState:
    """What the request handler learnt about the current navigation of one page."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.redirect_to: str | None = None
        self.http_status: int | None = None
        self.content_type: str | None = None
        self.unsupported: bool = False
        self.truncated: bool = False
        self.failure: Refusal | None = None
        self.refused: list[str] = []


@dataclass
class _Answer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes = b""
    truncated: bool = False


class RequestRouter:
    """Answers the requests of one browser's pages through the gate and one HTTP client."""

    def __init__(self, gate: EgressGate, http: httpx.AsyncClient, settings: BrowserSettings) -> None:
        self.gate = gate
        self.http = http
        self.settings = settings
        self._states: dict[int, PageState] = {}

    def add_page(self, page) -> None:
        """Follow ``page``'s navigations (its requests are told apart from other pages')."""
        self._states[id(page)] = PageState()

    def state(self, page) -> PageState:
        return self._states[id(page)]

    async def handle(self, route) -> None:
        """Answer one intercepted request: abort it, or fetch it through the gate and fulfil it."""
        request = route.request
        try:
            state, main = self._state_of(request)
            if request.resource_type in SKIPPED_RESOURCE_TYPES or (
                request.is_navigation_request() and not main
            ):
                await route.abort("blockedbyclient")  # sub-frames too: ads, trackers, embeds
                return
            if refusal := await self.gate.refusal(request.url):
                if main and state is not None:
                    state.failure = refusal
                elif state is not None:
                    state.refused.append(request.url)
                await route.abort("blockedbyclient")
                return
            if main and state is not None:
                await self._serve_document(route, state)
            else:
                await self._serve_subresource(route, state)
        except Exception as exc:  # noqa: BLE001 - an unanswered route would hang the page
            log.debug("request %s failed: %s", request.url, exc)
            try:
                await route.abort("failed")
            except Exception as late:  # noqa: BLE001 - already answered, or the page is gone
                log.debug("request %s could not be aborted: %s", request.url, late)

    def _state_of(self, request) -> tuple[PageState | None, bool]:
        try:
            frame = request.frame
            page = frame.page
        except Exception:  # noqa: BLE001 - a worker's request has no frame
            return None, False
        state = self._states.get(id(page))
        return state, request.is_navigation_request() and frame == page.main_frame

    async def _serve_document(self, route, state: PageState) -> None:
        request = route.request
        answer = await self._http_request(request, request.url, document=True)
        location = _header(answer.headers, "location")
        if 300 <= answer.status < 400 and location:
            # Chromium would follow it unrouted: the fetch loop navigates to it after the gate.
            state.redirect_to = urljoin(request.url, location)
            await route.fulfill(status=200, content_type="text/html", body="")
            return
        state.http_status = answer.status
        state.content_type = (_header(answer.headers, "content-type") or "").split(";")[
            0
        ].strip().lower() or None
        if state.content_type and not state.content_type.startswith(HTML_TYPES):
            state.unsupported = True
            await route.fulfill(status=200, content_type="text/html", body="")
            return
        state.truncated = answer.truncated
        await route.fulfill(status=answer.status, headers=_response_headers(answer.headers), body=answer.body)

    async def _serve_subresource(self, route, state: PageState | None) -> None:
        request = route.request
        url = request.url
        for _ in range(MAX_REDIRECTS):
            answer = await self._http_request(request, url, document=False)
            location = _header(answer.headers, "location")
            if not (300 <= answer.status < 400 and location):
                await route.fulfill(
                    status=answer.status, headers=_response_headers(answer.headers), body=answer.body
                )
                return
            url = urljoin(url, location)
            if await self.gate.refusal(url):
                if state is not None:
                    state.refused.append(url)
                await route.abort("blockedbyclient")
                return
        await route.abort("failed")

    async def _http_request(self, request, url: str, *, document: bool) -> _Answer:
        """One HTTP exchange, without following redirects, the body read up to the size cap."""
        headers = {
            k: v
            for k, v in (await request.all_headers()).items()
            if k.lower() not in _DROP_REQUEST_HEADERS and not k.startswith(":")
        }
        cap = self.settings.max_page_bytes

        async def exchange() -> _Answer:
            async with self.http.stream(
                request.method, url, headers=headers, content=request.post_data_buffer
            ) as response:
                answer = _Answer(status=response.status_code, headers=list(response.headers.multi_items()))
                if 300 <= response.status_code < 400:
                    return answer
                content_type = (response.headers.get("content-type") or "").split(";")[0].strip().lower()
                if document and content_type and not content_type.startswith(HTML_TYPES):
                    return answer  # a PDF or a download: the body is not wanted
                chunks, size = [], 0
                async for chunk in response.aiter_bytes():
                    if size + len(chunk) > cap:
                        chunks.append(chunk[: cap - size])
                        answer.truncated = True
                        break
                    chunks.append(chunk)
                    size += len(chunk)
                answer.body = b"".join(chunks)
                return answer

        # httpx's timeout bounds each read; this bounds a server that drips bytes forever.
        return await asyncio.wait_for(exchange(), timeout=self.settings.page_timeout_s)


def _header(headers: list[tuple[str, str]], name: str) -> str | None:
    return next((v for k, v in headers if k.lower() == name), None)


def _response_headers(headers: list[tuple[str, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in headers:
        key = key.lower()
        if key in _DROP_RESPONSE_HEADERS:
            continue
        out[key] = f"{out[key]}\n{value}" if key in out else value  # Playwright splits Set-Cookie on \n
    return out
