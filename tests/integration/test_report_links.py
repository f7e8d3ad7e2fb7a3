"""A hostile corpus record cannot run script in the report: its URL becomes a link only when it is
an http(s) URL, its text is escaped, and the page's Content-Security-Policy forbids all script.
Checked in real Chromium (every link clicked, every dialog listened for) and with a real
CommonMark parser for the Markdown report."""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from playwright.sync_api import sync_playwright

from fixtures.graphs import PAPERS
from fixtures.stores import copy_store
from lyra_core.report.refs import linkable
from lyra_resources.store.reviewed_graph.report import report_markdown, write_report
from lyra_resources.web.browser import find_chromium
from lyra_tools.exports import formats as export

# Each set fills the four sources' URLs (three papers without a DOI and a web page that is no paper).
HOSTILE_URLS = [
    [
        "javascript:alert(document.domain)//",
        "JaVaScRiPt:alert(document.domain)",
        "\x01 javascript:alert(document.domain)",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    ],
    [
        "vbscript:msgbox(1)",
        " \tjava\nscript:alert(document.domain)",
        "https://example.org/a> [click](javascript:alert(document.domain))",
        'https://example.org/b>[x](javascript:alert(document.domain))<"onmouseover=alert(1)',
    ],
]
HOSTILE_TITLES = {
    "meta": "<script>alert('title')</script> Vitamin D meta-analysis",
    "whi": "<img src=x onerror=\"alert('img')\"> Calcium plus vitamin D",
    "falls": "Falls ]]></title><svg onload=alert('svg')> in nursing homes",
    "blog": "<a href=\"javascript:alert('a')\">miracle</a>",
}
HOSTILE_CLAIM = (
    "High-dose <b onclick=alert('claim')>vitamin D</b> [x](javascript:alert(1)) reduces hip fractures."
)
SCRIPTLESS_HREF = re.compile(r"(#[\w-]+|https?://\S+)")
SCRIPT_SCHEME = re.compile(
    r"[\x00-\x20]*(j\s*a\s*v\s*a\s*s\s*c\s*r\s*i\s*p\s*t|data|vbscript)\s*:", re.IGNORECASE
)


def hostile_home(built_template, folder: Path, urls: list[str]):
    """A copy of the report's home (built once per module) in ``folder``, with every source's title
    and URL hostile, no DOIs, a claim holding markup."""
    store, graph = copy_store(built_template[0], folder / "home"), built_template[1]
    papers = store.read_partition("papers", graph.task_id).drop(columns="task_id")
    by_title = {p["title"]: key for key, p in PAPERS.items()}
    keys = [by_title.get(t, "falls") for t in papers["title"]]  # build_home renamed the falls paper
    papers["url"] = [urls[["meta", "whi", "falls"].index(k)] for k in keys]
    papers["title"] = [HOSTILE_TITLES[k] for k in keys]
    papers["doi"] = None
    store.replace_partition("papers", graph.task_id, papers)
    pages = store.read_partition("pages", graph.task_id).drop(columns="task_id")
    blog = pages["page_id"] == graph.pages["blog"]
    pages.loc[blog, "url"], pages.loc[blog, "title"] = urls[3], HOSTILE_TITLES["blog"]
    store.replace_partition("pages", graph.task_id, pages)
    claims = store.read_partition("claims", graph.task_id).drop(columns="task_id")
    claims.loc[claims["claim_id"] == graph.claims["hip"], "text"] = HOSTILE_CLAIM
    store.replace_partition("claims", graph.task_id, claims)
    return store, graph


def browse(page_file: Path) -> dict:
    """Open the page in Chromium, click every link, and say what ran: dialogs, scripts, hrefs."""
    dialogs: list[str] = []
    url = page_file.as_uri()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=find_chromium(""),
            headless=True,
            args=["--no-sandbox"] if os.geteuid() == 0 else [],
        )
        try:
            context = browser.new_context()
            # nothing leaves the machine: any request but the page's own gets a blank page from here
            context.route(
                "**/*",
                lambda route: (
                    route.continue_()
                    if route.request.url == url
                    else route.fulfill(status=200, content_type="text/html", body="<p>elsewhere</p>")
                ),
            )
            page = context.new_page()
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            page.goto(url)
            hrefs = page.eval_on_selector_all("a", "links => links.map(a => a.getAttribute('href'))")
            attributes = page.evaluate(
                "[...document.querySelectorAll('*')].flatMap(e => [...e.attributes].map(a => [a.name, a.value]))"
            )
            scripts = page.evaluate("document.scripts.length")
            text = page.inner_text("body")
            csp = page.evaluate(
                "document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]')?.content ?? null"
            )
            for i, href in enumerate(hrefs):
                link = page.locator("a").nth(i)
                if re.match(r"https?://", href or ""):  # a web link: it leaves the page, then we come back
                    with page.expect_navigation():
                        link.click()
                    page.goto(url)
                else:
                    link.click(no_wait_after=True)
                    page.wait_for_timeout(100)  # let a javascript: URL run, if it would
            page.goto(url)
            page.wait_for_timeout(200)
            ran = page.evaluate("document.title")
        finally:
            browser.close()
    return {
        "dialogs": dialogs,
        "hrefs": hrefs,
        "attributes": attributes,
        "scripts": scripts,
        "text": text,
        "csp": csp,
        "title": ran,
    }


@pytest.mark.parametrize("urls", HOSTILE_URLS, ids=["javascript-data", "vbscript-breakout"])
def test_hostile_records_run_no_script_in_chromium(built_template, tmp_path, urls):
    store, graph = hostile_home(built_template, tmp_path, urls)
    path = tmp_path / "reports" / f"{graph.task_id}.md"
    write_report(store, graph.task_id, path)
    page = path.with_suffix(".html")
    assert page.read_text() == export.export(store, graph.task_id, "html")  # the HTML export is this page

    seen = browse(page)

    assert seen["dialogs"] == [], f"script ran: {seen['dialogs']}"
    assert seen["scripts"] == 0
    assert all(SCRIPTLESS_HREF.fullmatch(h or "") for h in seen["hrefs"]), seen["hrefs"]
    for name, value in seen["attributes"]:
        assert not name.startswith("on"), (name, value)
        assert not SCRIPT_SCHEME.match(value), (name, value)
    assert "default-src 'none'" in seen["csp"] and "script-src 'none'" in seen["csp"]
    # the hostile texts are shown as text, not dropped
    assert "<script>alert('title')</script>" in seen["text"] and "<b onclick=alert('claim')>" in seen["text"]
    for url in urls:
        if linkable(url) is None:
            assert " ".join(url.split()).strip("\x01 ") in " ".join(seen["text"].split())


def test_the_policy_stops_markup_that_slipped_through(built_home, tmp_path):
    """Defence in depth: were a text ever written unescaped, the page's policy still runs nothing."""
    store, graph = built_home
    html = export.export(store, graph.task_id, "html")
    injected = html.replace(
        "<body>",
        "<body><script>alert('inline')</script><img src=x onerror=\"alert('img')\">"
        "<svg><script>alert('svg')</script></svg><iframe src=\"javascript:alert('frame')\">"
        "</iframe>",
        1,
    )
    assert injected != html
    page = tmp_path / "injected.html"
    page.write_text(injected, encoding="utf-8")

    assert browse(page)["dialogs"] == []


def test_markdown_links_only_to_http(built_template, tmp_path):
    for urls in HOSTILE_URLS:
        store, graph = hostile_home(built_template, tmp_path / str(HOSTILE_URLS.index(urls)), urls)
        text = report_markdown(store, graph.task_id)
        parser = MarkdownIt("commonmark")
        parser.validateLink = lambda url: True  # a renderer that trusts every link the text makes
        tokens = [t for block in parser.parse(text) for t in (block.children or [])]
        hrefs = [t.attrGet("href") for t in tokens if t.type == "link_open"]
        assert all(re.fullmatch(r"https?://\S+", h) for h in hrefs), hrefs
        assert not [t for t in tokens if t.type in ("html_inline", "image")]
        rendered = parser.render(text)
        assert not [h for h in re.findall(r'href="([^"]*)"', rendered) if SCRIPT_SCHEME.match(h)]
        for url in urls:  # shown as text
            if linkable(url) is None:
                assert " ".join(url.split()).strip("\x01 ")[:20] in rendered


@pytest.mark.parametrize(
    "url, link",
    [
        ("https://example.org/a?b=1&c=%20", "https://example.org/a?b=1&c=%20"),
        ("HTTP://Example.org/x", "HTTP://Example.org/x"),
        ("https://example.org/a b", None),
        ("https://example.org/é<>\"'`", "https://example.org/%C3%A9%3C%3E%22%27%60"),
        ("javascript:alert(1)//https://example.org", None),
        (" https://example.org/", None),
        ("\x00https://example.org/", None),
        ("https:///nohost", None),
        ("//example.org/x", None),
        ("mailto:a@example.org", None),
        ("data:text/html,<script>alert(1)</script>", None),
    ],
)
def test_only_http_urls_become_links(url, link):
    assert linkable(url) == link


# Links to this machine or a private network: the egress gate refuses to fetch them, and a reader's
# click would reach their own router, cloud metadata service or local admin page.
LOCAL_URLS = [
    [
        "https://user:pass@127.0.0.1:22/admin",
        "http://10.0.0.7/internal",
        "http://192.168.1.1/router",
        "http://169.254.169.254/latest/meta-data/",
    ],
    [
        "http://[::1]:8080/",
        "http://localhost:9000/x",
        "https://admin@example.org/login",
        "http://0x7f.0.0.1/",
    ],
]


class _Anchors(HTMLParser):
    """The href of every <a> of an HTML page, as a browser's parser reads them."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs += [value or "" for name, value in attrs if name == "href"]


@pytest.mark.parametrize("urls", LOCAL_URLS, ids=["userinfo-private-metadata", "loopback-names-forms"])
def test_links_to_local_or_private_hosts_are_shown_as_text(built_template, tmp_path, urls):
    store, graph = hostile_home(built_template, tmp_path, urls)
    text = report_markdown(store, graph.task_id)
    tokens = [t for block in MarkdownIt("commonmark").parse(text) for t in (block.children or [])]
    page = export.export(store, graph.task_id, "html")
    hrefs = [t.attrGet("href") for t in tokens if t.type == "link_open"] + _Anchors(page).hrefs
    assert hrefs and all(re.fullmatch(r"#[\w-]+|https?://\S+", h) for h in hrefs), hrefs
    for url in urls:
        host = url.split("//", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1]
        assert not [h for h in hrefs if host in h], (url, hrefs)
        shown = url.split("//", 1)[1][:12]
        assert shown in MarkdownIt("commonmark").render(text) and shown in page  # as text


@pytest.mark.parametrize(
    "url",
    [u for urls in LOCAL_URLS for u in urls]
    + ["http://2130706433/", "http://127.1/", "http://a.localhost/", "http://[::ffff:127.0.0.1]/"],
)
def test_no_link_names_this_machine_or_a_private_network(url):
    assert linkable(url) is None


@pytest.mark.parametrize("url", ["https://8.8.8.8/dns", "https://10.example.org/", "https://example.org/a@b"])
def test_public_hosts_stay_links(url):
    assert linkable(url) == url
