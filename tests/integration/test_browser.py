"""The browser stages end to end: real Chromium through Playwright against pages served on
127.0.0.1, the egress gate (schemes, private addresses, redirects, sub-requests, size cap,
blocked domains), and the ``serp_results`` / ``web_pages`` assets materialized in-process.

These tests never skip when Chromium is missing: they fail with the install message instead.
The only addresses they touch are on the loopback network; 127.0.0.2 plays the private host
that must never be reached, watched by a listener that counts every connection to it.
"""

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pandas as pd
import pytest
from dagster import DagsterInstance, materialize

from fixtures.browser import Spy, fast_politeness, quick
from fixtures.tables import with_upstream_tables
from lyra_assets import documents, web
from lyra_assets.partitions import TASKS_PARTITION
from lyra_assets.table_io import LYRA_TABLES, lyra_tables
from lyra_core.urls import address_refusal, parse_networks, url_refusal, web_page_id
from lyra_resources.corpus.paper_rows import papers_frame
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.settings.services import BrowserSettings
from lyra_resources.sources.literature import LiteratureSources
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.web import browser as browser_module
from lyra_resources.web.browser import BrowserSession, BrowserUnavailable, find_chromium
from lyra_resources.web.browser_resource import WebBrowser
from lyra_resources.web.domain_policy import DomainTrust
from lyra_resources.web.egress import EgressGate

LOOPBACK_ONLY = ["127.0.0.1/32"]


# -- pure checks -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "data:text/html,<h1>x</h1>",
        "javascript:alert(1)",
        "ftp://example.org/x",
        "chrome://settings",
        "about:blank",
        "http://",
        "//x.org/a",
        "http://[::1/",
    ],
)
def test_only_http_urls_with_a_host_are_fetchable(url):
    assert url_refusal(url)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "::1",
        "fe80::1",
        "fc00::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
    ],
)
def test_private_loopback_and_link_local_addresses_are_refused(address):
    assert "private, loopback, link-local or reserved" in address_refusal("h", [address])
    assert address_refusal("h", [address], allow_private=True) is None


def test_every_resolved_address_must_pass():
    assert address_refusal("h", ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]) is None
    assert address_refusal("h", ["93.184.215.14", "10.0.0.1"])  # one private answer is enough to refuse
    assert address_refusal("h", []) == "h did not resolve to any address"
    allow = parse_networks(LOOPBACK_ONLY)
    assert address_refusal("h", ["127.0.0.1"], allowed_networks=allow) is None
    assert address_refusal("h", ["127.0.0.2"], allowed_networks=allow)
    with pytest.raises(ValueError, match="not an IP network"):
        parse_networks(["localhost"])


def test_gate_resolves_every_spelling_of_an_address():
    async def check():
        gate = EgressGate(is_blocked=lambda domain: domain == "blocked.test")
        return [
            await gate.refusal(url)
            for url in (
                "http://localhost:8080/",
                "http://2130706433/",
                "http://0x7f.1/",
                "http://[::ffff:127.0.0.1]/",
                "http://blocked.test/page",
                "file:///etc/passwd",
            )
        ]

    answers = asyncio.run(check())
    assert [a[0] for a in answers] == ["refused", "refused", "refused", "refused", "blocked", "refused"]
    assert "blocked by the domain policy" in answers[4][1]


def test_missing_chromium_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(browser_module, "SYSTEM_CHROMIUM", ("/nonexistent/chromium",))
    monkeypatch.setattr(browser_module.shutil, "which", lambda name: None)
    with pytest.raises(BrowserUnavailable) as error:
        find_chromium("", bundled="/nonexistent/ms-playwright/chrome")
    message = str(error.value)
    assert "apt-get install chromium" in message and "scripts/install-system-deps.sh" in message
    with pytest.raises(BrowserUnavailable, match="browser.executable_path '/nope' is not an executable"):
        find_chromium("/nope")


def test_domains_a_user_blocked_through_feedback_are_blocked():
    from lyra_core.domain_rules import DomainRule, blocked_domains

    rules = [
        DomainRule(id=str(i), domain_pattern=p, decision=d)
        for i, (p, d) in enumerate(
            [("example.com", "block"), ("good.example.com", "unblock"), ("*.ads.test", "block")]
        )
    ]

    def blocked(domain):
        return bool(blocked_domains([domain], rules))

    assert blocked("example.com") and blocked("www.example.com")
    assert not blocked("good.example.com")  # the more specific unblock wins
    assert blocked("x.ads.test") and not blocked("ads.test")
    assert not blocked("notexample.com")


def test_settings_become_the_resource_and_the_environment_wins():
    resource = WebBrowser.from_settings(
        BrowserSettings(engines=["duckduckgo", "bing"]), env={"LYRA_BROWSER_SEARCH": "off"}
    )
    assert resource.config().search == "off" and resource.config().engines == ["duckduckgo", "bing"]
    with pytest.raises(ValueError):
        WebBrowser(search="sometimes").config()


# -- local servers ---------------------------------------------------------------------------------


class Site:
    """Pages served on 127.0.0.1: a fake DuckDuckGo, real landing pages, redirects and traps."""

    def __init__(self, shared_data: Path, spy: Spy) -> None:
        self.data = shared_data / "landing_pages"
        self.spy = spy
        self.hits: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                site.hits.append(self.path)
                status, headers, body = site.answer(self.path)
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_port
        self.base = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # The search results, in the shape of html.duckduckgo.com (div.result, a.result__a wrapped
    # in //duckduckgo.com/l/?uddg=…, .result__snippet), linking back to this server.
    def results(self) -> list[tuple[str, str, str]]:
        b = self.base
        return [
            (
                f"{b}/papis/IOPScience_002.html",
                "Magnetic Temperature Scale in the 2 K to 30 K Range",
                "Metrologia 12 (1976), doi:10.1088/0026-1394/12/4/002",
            ),
            (f"{b}/go/SpringerLink_BF02727953", "On the theory of identical particles", "Il Nuovo Cimento B"),
            (
                f"{b}/papis/ProjectEuclid_1391109086.html",
                "An analysis of the renormalization group method",
                "",
            ),
            (f"{b}/arxiv/1902.02534", "Crowdsourcing open citations with CROCI", "arXiv:1902.02534"),
            (f"{b}/pubmed/22188593", "Antihypertensive efficacy of the losartan", "PMID: 22188593"),
            (f"{b}/to-private", "A page that redirects to a private address", ""),
            (f"{b}/big.html", "An oversized page", ""),
            (f"http://localhost:{self.port}/papis/NBER_w29971.html", "On a blocked domain", ""),
            (f"{b}/trap.html", "A page whose sub-requests go to a private address", ""),
            (f"{b}/go/IOPScience_002", "The first result again, behind a redirect", ""),
            ("file:///etc/passwd", "Not fetchable", ""),
        ]

    def serp(self) -> bytes:
        blocks = "".join(
            f'<div class="result results_links results_links_deep web-result "><div class="links_main result__body">'
            f'<h2 class="result__title"><a rel="nofollow" class="result__a" '
            f'href="//duckduckgo.com/l/?uddg={quote(url, safe="")}&amp;rut=0a1b">{title}</a></h2>'
            f'<a class="result__snippet" href="#">{snippet}</a></div></div>'
            for url, title, snippet in self.results()
        )
        return f'<html><body><div class="results">{blocks}</div></body></html>'.encode()

    def answer(self, path: str) -> tuple[int, dict[str, str], bytes]:
        html = {"Content-Type": "text/html; charset=utf-8"}
        if path.startswith("/html/"):  # duckduckgo.com/html/ answers with a 302 to the results
            return 302, {"Location": "/ddg" + path}, b""
        if path.startswith("/ddg/html/"):
            return 200, html, self.serp()
        if path.startswith("/papis/"):
            file = self.data / "papis" / Path(path).name
            return (200, html, file.read_bytes()) if file.is_file() else (404, html, b"not found")
        if path.startswith("/go/"):
            return 302, {"Location": f"/papis/{path.removeprefix('/go/')}.html"}, b""
        if path.startswith("/arxiv/"):
            return 200, html, (self.data / "commonmeta" / "test_arxiv__00.html").read_bytes()
        if path.startswith("/pubmed/"):
            return 200, html, (self.data / "readability_pubmed" / "pubmed.html").read_bytes()
        if path == "/to-private":
            return 302, {"Location": f"http://127.0.0.2:{self.spy.port}/secret"}, b""
        if path == "/big.html":
            return (
                200,
                html,
                b"<html><body><p>" + b"lorem ipsum dolor sit amet. " * 60_000 + b"</p></body></html>",
            )
        if path == "/trap.html":
            spy = f"http://127.0.0.2:{self.spy.port}"
            return (
                200,
                html,
                (
                    f'<html><head><title>Trap</title><link rel="preconnect" href="{spy}">'
                    f'<script src="{spy}/x.js"></script><script src="/bounce.js"></script></head>'
                    f'<body><p>A page that reaches for a private address in four ways.</p><img src="{spy}/i.png">'
                    f'<iframe src="{spy}/frame"></iframe>'
                    f'<script>fetch("{spy}/xhr").catch(() => 0); try '
                    f'{{ new WebSocket("ws://127.0.0.2:{self.spy.port}/") }}'
                    f" catch (e) {{}}</script></body></html>"
                ).encode(),
            )
        if path == "/bounce.js":
            return 302, {"Location": f"http://127.0.0.2:{self.spy.port}/bounced.js"}, b""
        if path == "/pdf":
            return 200, {"Content-Type": "application/pdf"}, b"%PDF-1.4 " * 100
        return 404, html, b"<html><body>not found</body></html>"


def serve_site(site_class: type[Site], shared_data: Path):
    spy = Spy()
    served = site_class(shared_data, spy)
    yield served
    served.close()
    spy.close()


@pytest.fixture
def site(shared_data):
    yield from serve_site(Site, shared_data)


# -- the session and its gate ----------------------------------------------------------------------


def test_loopback_is_refused_unless_allowed(site):
    async def run():
        async with BrowserSession(quick(), qps=fast_politeness) as session:
            return [
                await session.fetch(url)
                for url in (
                    f"{site.base}/papis/IOPScience_002.html",
                    "file:///etc/passwd",
                    "data:text/html,<p>x</p>",
                    "javascript:alert(1)",
                )
            ], session.started

    pages, started = asyncio.run(run())
    assert [p.status for p in pages] == ["refused"] * 4
    assert not started  # nothing passed the gate: Chromium was never launched
    assert "127.0.0.1" in pages[0].error and "loopback" in pages[0].error
    assert "only http(s)" in pages[1].error
    assert site.hits == []  # nothing reached the server


def test_redirects_sub_requests_size_cap_and_blocked_domains(site):
    async def run():
        cfg = quick(allowed_networks=LOOPBACK_ONLY)
        async with BrowserSession(cfg, is_blocked=lambda d: d == "localhost", qps=fast_politeness) as session:
            urls = [
                f"{site.base}/go/IOPScience_002",
                f"{site.base}/to-private",
                f"{site.base}/big.html",
                f"http://localhost:{site.port}/papis/NBER_w29971.html",
                f"{site.base}/trap.html",
                f"{site.base}/pdf",
            ]
            pages = await asyncio.gather(*(session.fetch(u) for u in urls))
            await asyncio.sleep(0.5)  # give a leaked preconnect or WebSocket time to show up
            return pages

    redirected, private, big, blocked, trap, pdf = asyncio.run(run())
    assert redirected.status == "ok" and redirected.final_url == f"{site.base}/papis/IOPScience_002.html"
    assert redirected.redirects == [f"{site.base}/go/IOPScience_002"]
    assert 'name="citation_doi"' in redirected.html

    assert private.status == "refused" and "127.0.0.2" in private.error and "redirect from" in private.error

    assert big.status == "ok" and big.truncated and len(big.html.encode()) <= 300_000

    assert blocked.status == "blocked" and "localhost is blocked" in blocked.error
    assert "/papis/NBER_w29971.html" not in site.hits

    assert trap.status == "ok" and "Trap" in trap.html
    assert any("/x.js" in u for u in trap.refused_requests)
    assert any("/bounced.js" in u for u in trap.refused_requests)  # refused at the redirect hop
    assert any("/xhr" in u for u in trap.refused_requests)

    assert pdf.status == "unsupported" and pdf.content_type == "application/pdf"
    assert site.spy.connections == 0  # not one connection reached the private address


# -- the assets ------------------------------------------------------------------------------------


def policy_file(tmp_path: Path) -> Path:
    path = tmp_path / "domains.yaml"
    path.write_text(
        "default_politeness: {qps: 50}\n"
        "domains:\n"
        "  - {domain: 127.0.0.1, trust_level: trusted, qps: 50}\n"
        "  - {domain: localhost, trust_level: blocked}\n"
    )
    return path


def literature(home: Path) -> LiteratureSources:
    return LiteratureSources(cache_dir=str(home / "cache"))


def materialization_metadata(result, asset: str) -> dict:
    """The metadata of ``asset``'s materialization in ``result`` (one step may materialize two assets)."""
    return next(
        e.event_specific_data.materialization.metadata
        for e in result.get_asset_materialization_events()
        if e.asset_key.to_user_string() == asset
    )


def materialize_web_stages(store: LyraStore, task_id: str, browser: WebBrowser, home: Path, tmp_path: Path):
    """serp_results → web_pages → pages → fragments for one task, in-process, with the test policy."""
    resources = {
        "store": store,
        "browser": browser,
        "trust": DomainTrust(path=str(policy_file(tmp_path))),
        "literature": literature(home),
        "settings": LyraSettings(),
        LYRA_TABLES: lyra_tables,
    }
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task_id])
        result = materialize(
            with_upstream_tables(web.serp_results, web.web_fetch, documents.pages, documents.fragments),
            partition_key=task_id,
            resources=resources,
            instance=instance,
        )
    assert result.success
    return result


@pytest.mark.slow  # about 12 s: two Chromium launches, a search and twelve page loads
def test_serp_results_and_web_pages_materialize_for_a_task(site, lyra_home, tmp_path, monkeypatch):
    monkeypatch.setenv("LYRA_SOURCES_LIVE", "off")  # identifiers are listed, not completed
    store = LyraStore.at(lyra_home)
    task = store.create_task("magnetic temperature scale at low temperatures")
    # papers the task already has: one known by DOI, one without an abstract whose page is fetched
    papers = pd.DataFrame(
        [
            {
                "paper_id": "p1",
                "doi": "10.1007/bf02727953",
                "pmid": None,
                "arxiv_id": None,
                "title": "On the theory of identical particles",
                "abstract": "Known already.",
                "year": 1977,
                "venue": None,
                "url": None,
                "sources": ["local:1"],
                "search_rank": 1,
                "authors": [],
            },
            {
                "paper_id": "p2",
                "doi": None,
                "pmid": None,
                "arxiv_id": None,
                "title": "Meaning At Work",
                "abstract": None,
                "year": 2025,
                "venue": None,
                "url": f"{site.base}/papis/NBER_w33843.html",
                "sources": ["local:2"],
                "search_rank": 2,
                "authors": [],
            },
        ]
    ).astype({"year": "Int64"})
    store.replace_partition("papers", task.id, papers)
    browser = WebBrowser(
        search="on",
        allowed_networks=LOOPBACK_ONLY,
        engine_urls={"duckduckgo": f"{site.base}/html/"},
        results_per_engine=20,
        fetch_limit=30,
        settle_s=0.2,
        page_timeout_s=10,
        max_page_bytes=300_000,
    )
    result = materialize_web_stages(store, task.id, browser, lyra_home, tmp_path)

    serp = store.read_partition("serp_results", task.id).sort_values("rank").reset_index(drop=True)
    assert len(serp) == 10  # the file: link is dropped
    assert list(serp["rank"]) == list(range(1, 11))
    assert serp.loc[0, "url"] == f"{site.base}/papis/IOPScience_002.html"  # uddg redirect unwrapped
    assert list(serp.loc[0, "dois"]) == ["10.1088/0026-1394/12/4/002"]
    assert list(serp.loc[4, "pmids"]) == ["22188593"] and list(serp.loc[3, "arxiv_ids"]) == ["1902.02534"]
    assert set(serp["engine"]) == {"duckduckgo"} and set(serp["query"]) == {task.query}
    assert site.hits[0].startswith("/html/?q=magnetic+temperature") and site.hits[1].startswith("/ddg/html/")

    pages = store.read_partition("web_pages", task.id).set_index("url")
    b = site.base
    iop = pages.loc[f"{b}/papis/IOPScience_002.html"]
    assert iop.status == "ok" and iop.page_doi == "10.1088/0026-1394/12/4/002" and iop.depth == 0
    assert iop.page_id == web_page_id(iop.final_url) and iop.source == "serp:duckduckgo:1"
    assert "Magnetic Temperature Scale" in iop.title and len(iop.text) > 500
    assert json.loads(iop.citation)["journal"] == "Metrologia"
    springer = pages.loc[f"{b}/go/SpringerLink_BF02727953"]
    assert springer.final_url == f"{b}/papis/SpringerLink_BF02727953.html"
    assert springer.page_doi == "10.1007/bf02727953" and next(iter(springer.dois)) == "10.1007/bf02727953"
    assert pages.loc[f"{b}/papis/ProjectEuclid_1391109086.html"].page_doi == "10.57262/ade/1391109086"
    assert next(iter(pages.loc[f"{b}/arxiv/1902.02534"].arxiv_ids)) == "1902.02534"
    assert next(iter(pages.loc[f"{b}/pubmed/22188593"].pmids)) == "22188593"
    assert pages.loc[f"{b}/to-private"].status == "refused"
    assert pages.loc[f"{b}/big.html"].truncated
    assert pages.loc[f"http://localhost:{site.port}/papis/NBER_w29971.html"].status == "blocked"
    assert pages.loc[f"{b}/trap.html"].status == "ok"
    paper_page = pages.loc[f"{b}/papis/NBER_w33843.html"]
    assert paper_page.source == "paper:p2" and paper_page.page_doi == "10.3386/w33843"
    # the redirect to the first result's page is the same page: one row
    assert f"{b}/go/IOPScience_002" not in pages.index and pages["page_id"].is_unique
    assert "/papis/NBER_w29971.html" not in site.hits and site.spy.connections == 0

    meta = materialization_metadata(result, "web_pages")
    pending = meta["identifiers_for_completion"].value
    assert "10.1088/0026-1394/12/4/002" in pending["dois"] and "10.3386/w33843" in pending["dois"]
    assert "10.1007/bf02727953" not in pending["dois"]  # the task's papers know it already
    assert "22188593" in pending["pmids"] and "1902.02534" in pending["arxiv_ids"]
    assert meta["statuses"].value == {"ok": 8, "refused": 1, "blocked": 1}
    assert meta["identifier_completion"].value.startswith("off") and meta["identified_papers"].value == 0

    # fetched pages join the task's documents as `web` pages, and their text becomes fragments
    task_pages = store.read_partition("pages", task.id)
    web_rows = task_pages[task_pages["kind"] == "web"]
    ok_pages = pages[(pages["status"] == "ok") & (pages["text"].str.strip().str.len() > 0)]
    assert set(web_rows["page_id"]) == set(ok_pages["page_id"])
    fragments = store.read_partition("fragments", task.id)
    iop_fragments = fragments[fragments["page_id"] == iop.page_id]
    assert len(iop_fragments) > 1 and any("Magnetic" in t or "magnetic" in t for t in iop_fragments["text"])


def test_offline_task_never_launches_a_browser(lyra_home, small_corpus, monkeypatch):
    class NoBrowser:
        def __init__(self, *args, **kwargs):
            raise AssertionError("a task with a local corpus launched the browser")

    monkeypatch.setattr(web, "BrowserSession", NoBrowser)
    store = LyraStore.at(lyra_home)
    task = store.create_task("vitamin D and fractures", {"corpus": [str(small_corpus)]})
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task.id])
        result = materialize(
            with_upstream_tables(web.serp_results, web.web_fetch),
            partition_key=task.id,
            instance=instance,
            resources={
                "store": store,
                "browser": WebBrowser(),
                "trust": DomainTrust(),
                "literature": literature(lyra_home),
                "settings": LyraSettings(),
                LYRA_TABLES: lyra_tables,
            },
        )
    assert result.success
    for name in ("serp_results", "web_pages"):
        meta = materialization_metadata(result, name)
        assert meta["browser"].value == "off" and "local corpus" in meta["reason"].value
        assert store.read_partition(name, task.id).empty


def test_browser_on_without_chromium_fails_with_the_install_message(lyra_home, monkeypatch):
    monkeypatch.setattr(browser_module, "SYSTEM_CHROMIUM", ("/nonexistent/chromium",))
    monkeypatch.setattr(browser_module.shutil, "which", lambda name: None)
    original = browser_module.find_chromium  # and no Playwright build either
    monkeypatch.setattr(
        browser_module, "find_chromium", lambda configured, bundled: original(configured, None)
    )
    store = LyraStore.at(lyra_home)
    task = store.create_task("anything at all")
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task.id])
        # the engine's URL passes the gate (loopback allowed), so Chromium is needed — and missing
        browser = WebBrowser(
            search="on",
            allowed_networks=LOOPBACK_ONLY,
            engine_urls={"duckduckgo": "http://127.0.0.1:9/html/"},
        )
        result = materialize(
            with_upstream_tables(web.serp_results),
            partition_key=task.id,
            instance=instance,
            raise_on_error=False,
            resources={
                "store": store,
                "browser": browser,
                "trust": DomainTrust(),
                "literature": literature(lyra_home),
                "settings": LyraSettings(),
                LYRA_TABLES: lyra_tables,
            },
        )
    assert not result.success
    [failure] = [e for e in result.all_events if e.is_step_failure]
    assert "apt-get install chromium" in failure.step_failure_data.error.to_string()


# -- the identifier loop (phase 6 → 3) -------------------------------------------------------------


class ReadingListSite(Site):
    """One search result: a reading list (a page written for this test, the shape of a blog post)
    linking four papers by DOI; and a DOI resolver (``/doi/…``) redirecting to landing pages."""

    DOIS = ["10.7717/peerj.4375", "10.2139/ssrn.288970", "10.1007/BF02727953", "10.5555/lyra.nowhere.1"]

    def results(self) -> list[tuple[str, str, str]]:
        return [(f"{self.base}/reading-list.html", "Reading list: open access and research methods", "")]

    def answer(self, path: str) -> tuple[int, dict[str, str], bytes]:
        if path == "/reading-list.html":
            links = "".join(
                f'<li><a href="https://doi.org/{d}">paper {i}</a></li>' for i, d in enumerate(self.DOIS)
            )
            return (
                200,
                {"Content-Type": "text/html; charset=utf-8"},
                (
                    "<html><head><title>Reading list</title></head><body><article><h1>Reading list</h1>"
                    "<p>Four papers we keep coming back to when discussing open access and how research is "
                    "evaluated. Each is linked by its DOI, so readers can find the record in any index.</p>"
                    f"<ul>{links}</ul></article></body></html>"
                ).encode(),
            )
        if path.lower() == "/doi/10.1007/bf02727953":
            return 302, {"Location": "/papis/SpringerLink_BF02727953.html"}, b""
        return super().answer(path)


@pytest.fixture
def reading_list_site(shared_data):
    yield from serve_site(ReadingListSite, shared_data)


def s2_record(shared_data: Path, doi: str) -> dict:
    """A real Semantic Scholar paper record from the recordings, by DOI."""
    raw = json.loads(
        (
            shared_data
            / "api_responses"
            / "s2_danielnsilva_decoded"
            / "test_get_papers_not_found_warning__00.json"
        ).read_text()
    )
    return next(p for p in raw["body"] if p and (p.get("externalIds") or {}).get("DOI", "").lower() == doi)


@pytest.mark.slow  # about 8 s: Chromium, a search, three page loads and the fake APIs
def test_identifiers_on_pages_are_completed_and_landing_pages_fetched(
    reading_list_site, fake_apis, lyra_settings, lyra_home, shared_data, tmp_path
):
    """SERP → reading list → its DOIs through identifier completion: S2 knows one with an abstract
    (a real record), OpenAlex another (a real work), S2 a third without an abstract (a record
    assembled from its landing page's citation metadata), so its landing page is fetched through
    the DOI resolver one round later; the fourth is unknown to both and stays unresolved."""
    lyra_settings(sources={"live": "on"})
    site, scholar = reading_list_site, fake_apis
    scholar.s2_papers["doi:10.2139/ssrn.288970"] = s2_record(shared_data, "10.2139/ssrn.288970")
    scholar.s2_papers["doi:10.1007/bf02727953"] = {  # assembled: the Springer page's citation_* metadata
        "paperId": "a1b2c3springer",
        "externalIds": {"DOI": "10.1007/BF02727953"},
        "title": "On the theory of identical particles",
        "abstract": None,
        "year": 1977,
        "venue": "Il Nuovo Cimento B",
    }
    store = LyraStore.at(lyra_home)
    task = store.create_task("open access prevalence and research evaluation")
    store.replace_partition("papers", task.id, papers_frame([]))  # the task has no paper yet
    browser = WebBrowser(
        search="on",
        allowed_networks=LOOPBACK_ONLY,
        engine_urls={"duckduckgo": f"{site.base}/html/"},
        doi_resolver=f"{site.base}/doi/",
        loop_depth=1,
        settle_s=0.2,
        page_timeout_s=10,
    )
    result = materialize_web_stages(store, task.id, browser, lyra_home, tmp_path)

    identified = store.read_partition("identified_papers", task.id).set_index("doi")
    assert set(identified.index) == {"10.7717/peerj.4375", "10.2139/ssrn.288970", "10.1007/bf02727953"}
    assert identified.loc["10.7717/peerj.4375", "title"].startswith("The state of OA")
    assert any(s.startswith("openalex:W2741809807") for s in identified.loc["10.7717/peerj.4375", "sources"])
    assert (
        identified.loc["10.2139/ssrn.288970", "abstract"]
        and identified.loc["10.2139/ssrn.288970", "depth"] == 1
    )
    assert identified.loc["10.1007/bf02727953", "abstract"] is None

    fetched = store.read_partition("web_pages", task.id).set_index("source")
    assert fetched.loc["serp:duckduckgo:1", "depth"] == 0
    landing = fetched.loc["doi:10.1007/bf02727953"]  # the paper without an abstract: its landing page
    assert landing.depth == 1 and landing.status == "ok" and landing.page_doi == "10.1007/bf02727953"
    assert landing.url == f"{site.base}/doi/10.1007/bf02727953"
    assert len(fetched) == 2  # nothing else: the loop stops at depth 1, and the other three had abstracts

    meta = materialization_metadata(result, "web_pages")
    assert meta["identified_papers"].value == 3 and meta["identified_with_abstract"].value == 2
    assert meta["unresolved_identifiers"].value == ["doi:10.5555/lyra.nowhere.1"]
    assert meta["loop_rounds"].value == 2 and meta["identifiers_for_completion_count"].value == 0
    asked = [p["ids"] for m, path, p in scholar.requests if m == "POST"]
    assert sorted(asked[0]) == sorted(f"DOI:{d.lower()}" for d in ReadingListSite.DOIS)

    # the two abstracts join the task's documents as abstract pages, and become fragments
    pages = store.read_partition("pages", task.id)
    abstract_pages = pages[pages["kind"] == "abstract"]
    assert set(abstract_pages["paper_id"]) == set(identified[identified["abstract"].notna()]["paper_id"])
    assert set(pages["kind"]) == {"abstract", "web"}
    fragments = store.read_partition("fragments", task.id)
    did = abstract_pages[abstract_pages["title"].str.contains("Differences-in-Differences")]["page_id"].item()
    assert (
        fragments[fragments["page_id"] == did]["text"]
        .str.contains("serial correlation|standard errors", regex=True)
        .any()
    )
