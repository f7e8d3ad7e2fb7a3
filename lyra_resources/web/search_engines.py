"""Search engines behind one interface: a query URL to load in the browser, and a pure parser
from the result page's HTML to result rows.

Parsers follow the page shapes recorded in ``shared/data/serp`` (DuckDuckGo's HTML endpoint, Google
Scholar, Bing, Google's basic HTML); base URLs are settings, so tests point them at a local server.
A page that is an anti-bot challenge instead of results is reported as such, never as "no results".
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from urllib.parse import urlencode

from pydantic import BaseModel, ConfigDict

from lyra_core.identifiers import Identifiers, identifiers_in_text, identifiers_in_url
from lyra_core.page_extraction import parse_html
from lyra_core.urls import unwrap_redirect, url_domain


class SerpResult(BaseModel):
    """One organic result of one engine, with the identifiers its link, title and snippet name."""

    model_config = ConfigDict(frozen=True)
    engine: str
    rank: int
    url: str
    title: str
    snippet: str
    domain: str
    identifiers: Identifiers


def _text(node) -> str:
    return " ".join(node.text_content().split()) if node is not None else ""


def _has_class(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


def _result(engine: str, rank: int, url: str, title: str, snippet: str) -> SerpResult:
    ids = identifiers_in_url(url).merged(identifiers_in_text(title), identifiers_in_text(snippet))
    return SerpResult(
        engine=engine,
        rank=rank,
        url=url,
        title=title,
        snippet=snippet,
        domain=url_domain(url),
        identifiers=ids,
    )


def _collect(engine: str, found: list[tuple[str | None, str, str]]) -> list[SerpResult]:
    """Rank the (url, title, snippet) triples in page order, dropping unusable and repeated URLs."""
    out: list[SerpResult] = []
    seen: set[str] = set()
    for url, title, snippet in found:
        if not url or url in seen:
            continue
        seen.add(url)
        out.append(_result(engine, len(out) + 1, url, title, snippet))
    return out


def parse_duckduckgo(html: str, base_url: str = "https://html.duckduckgo.com/html/") -> list[SerpResult]:
    """html.duckduckgo.com: ``div.result`` blocks, title link ``a.result__a`` (a direct link or a
    ``//duckduckgo.com/l/?uddg=`` redirect), snippet ``.result__snippet``; ads are skipped."""
    tree = parse_html(html)
    found = []
    for block in tree.xpath(f"//div[{_has_class('result')}]"):
        if "result--ad" in (block.get("class") or ""):
            continue
        links = block.xpath(f".//a[{_has_class('result__a')}]")
        if not links:
            continue
        url = unwrap_redirect(links[0].get("href"), base_url)
        if url and url_domain(url).endswith("duckduckgo.com") and "/y.js" in url:
            continue  # an ad's click-tracking link
        snippet = block.xpath(f".//*[{_has_class('result__snippet')}]")
        found.append((url, _text(links[0]), _text(snippet[0]) if snippet else ""))
    return _collect("duckduckgo", found)


def parse_google_scholar(html: str, base_url: str = "https://scholar.google.com/scholar") -> list[SerpResult]:
    """scholar.google.com: ``div.gs_r`` with ``div.gs_ri``; title link in ``h3.gs_rt``, authors and
    venue in ``.gs_a``, snippet ``.gs_rs``. [CITATION] entries without a link are skipped; when the
    title has no link, the full-text link (``.gs_or_ggsm a``) stands in."""
    tree = parse_html(html)
    found = []
    blocks = tree.xpath(f"//div[{_has_class('gs_ri')}]")
    for block in blocks:
        title_node = block.xpath(f".//h3[{_has_class('gs_rt')}]")
        if not title_node:
            continue
        link = title_node[0].xpath(".//a[@href]")
        href = link[0].get("href") if link else None
        if href is None:
            outer = block.getparent()
            pdf = outer.xpath(f".//div[{_has_class('gs_or_ggsm')}]//a[@href]") if outer is not None else []
            href = pdf[0].get("href") if pdf else None
        title = _text(link[0]) if link else _text(title_node[0])
        byline = _text((block.xpath(f".//div[{_has_class('gs_a')}]") or [None])[0])
        snippet = _text((block.xpath(f".//div[{_has_class('gs_rs')}]") or [None])[0])
        found.append((unwrap_redirect(href, base_url), title, " — ".join(p for p in (byline, snippet) if p)))
    if not blocks:  # the 2010 markup: bare h3.r headings
        for heading in tree.xpath(f"//h3[{_has_class('r')}]"):
            link = heading.xpath(".//a[@href]")
            if link:
                found.append((unwrap_redirect(link[0].get("href"), base_url), _text(link[0]), ""))
    return _collect("google_scholar", found)


def parse_bing(html: str, base_url: str = "https://www.bing.com/search") -> list[SerpResult]:
    """bing.com: ``li.b_algo``, title link ``h2 a`` (direct or a ``/ck/a?u=a1<base64>`` redirect),
    snippet in ``.b_caption p`` (or ``.b_lineclamp*``)."""
    tree = parse_html(html)
    found = []
    for block in tree.xpath(f"//li[{_has_class('b_algo')}]"):
        link = block.xpath(".//h2//a[@href]")
        if not link:
            continue
        snippet = block.xpath(f".//div[{_has_class('b_caption')}]//p") or block.xpath(
            ".//p[contains(@class, 'b_lineclamp')]"
        )
        found.append(
            (
                unwrap_redirect(link[0].get("href"), base_url),
                _text(link[0]),
                _text(snippet[0]) if snippet else "",
            )
        )
    return _collect("bing", found)


def parse_google(html: str, base_url: str = "https://www.google.com/search") -> list[SerpResult]:
    """google.com (basic HTML and the JS page): a result is a link holding an ``h3``; the snippet is
    the rest of the result block's text. Class names there are obfuscated and change, so the
    parser leans on structure only."""
    tree = parse_html(html)
    found = []
    for heading in tree.xpath("//a[@href]//h3"):
        link = next(a for a in heading.iterancestors("a"))
        url = unwrap_redirect(link.get("href"), base_url)
        if url and url_domain(url).endswith(("google.com", "googleusercontent.com")) and "/search" in url:
            continue  # "People also search" and knowledge-panel links back into Google
        block = link
        for ancestor in link.iterancestors("div"):
            block = ancestor
            classes = f" {ancestor.get('class') or ''} "
            if " g " in classes or " xpd " in classes or " ZINbbc " in classes:
                break
        rest = copy.deepcopy(block)
        for inner in rest.xpath(".//a[.//h3]"):
            inner.drop_tree()
        found.append((url, _text(heading), _text(rest)))
    return _collect("google", found)


# Phrases of the challenge pages each engine shows an automated client instead of results.
_CHALLENGE_MARKERS = (
    "anomaly-modal",
    "unusual traffic",
    "not a robot",
    "gs_captcha",
    "captcha-form",
    "/sorry/index",
    "solve the challenge",
    "verify you are human",
    "recaptcha",
)


def looks_like_challenge(html: str) -> bool:
    """An anti-bot challenge (CAPTCHA, 'unusual traffic') rather than a result page."""
    lowered = html[:200_000].lower()
    return any(marker in lowered for marker in _CHALLENGE_MARKERS)


class SearchEngine(BaseModel):
    """An engine: where to send a query, and how to read the answer."""

    model_config = ConfigDict(frozen=True)
    name: str
    base_url: str
    query_param: str = "q"
    extra_params: dict[str, str] = {}

    def query_url(self, query: str) -> str:
        params = {self.query_param: " ".join(query.split()), **self.extra_params}
        separator = "&" if "?" in self.base_url else "?"
        return f"{self.base_url}{separator}{urlencode(params)}"

    def parse(self, html: str, page_url: str | None = None) -> list[SerpResult]:
        return PARSERS[self.name](html, page_url or self.base_url)


PARSERS: dict[str, Callable[[str, str], list[SerpResult]]] = {
    "duckduckgo": parse_duckduckgo,
    "google_scholar": parse_google_scholar,
    "bing": parse_bing,
    "google": parse_google,
}
DEFAULT_BASE_URLS: dict[str, str] = {
    "duckduckgo": "https://html.duckduckgo.com/html/",
    "google_scholar": "https://scholar.google.com/scholar",
    "bing": "https://www.bing.com/search",
    "google": "https://www.google.com/search",
}
_EXTRA_PARAMS: dict[str, dict[str, str]] = {"google": {"gbv": "1"}, "google_scholar": {"hl": "en"}}


def engine(name: str, base_urls: Mapping[str, str] | None = None) -> SearchEngine:
    """The engine called ``name``, at the base URL ``base_urls`` gives it (else its public one)."""
    if name not in PARSERS:
        raise ValueError(f"unknown search engine {name!r}; known engines: {', '.join(sorted(PARSERS))}")
    base = (base_urls or {}).get(name) or DEFAULT_BASE_URLS[name]
    return SearchEngine(name=name, base_url=base, extra_params=_EXTRA_PARAMS.get(name, {}))
