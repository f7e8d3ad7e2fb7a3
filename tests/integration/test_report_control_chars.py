"""Control characters in a record's title cannot break the report: its SVG (a file of its own and
inline in the HTML page) still parses in real Chromium, and its Markdown keeps the title on one line."""

from __future__ import annotations

import os
from pathlib import Path

from markdown_it import MarkdownIt
from playwright.sync_api import sync_playwright

from fixtures.answers import build_home
from lyra_resources.store.reviewed_graph.report import write_report
from lyra_resources.web.browser import find_chromium

CONTROL_TITLE = (
    "Vitamin D\x00 and falls\x01\x08\x0b\x0c\x1b[2J\x7f \u202eslaf\u202c \ufffe in\n# Forged heading"
)


def hostile_title_home(tmp_path: Path):
    store, graph = build_home(tmp_path)
    papers = store.read_partition("papers", graph.task_id).drop(columns="task_id")
    papers.loc[papers.index[0], "title"] = CONTROL_TITLE
    store.replace_partition("papers", graph.task_id, papers)
    return store, graph


def opened_in_chromium(files: list[Path]) -> list[dict]:
    """Each file as Chromium reads it: its root element, its parse errors, its graph's labels."""
    seen = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=find_chromium(""),
            headless=True,
            args=["--no-sandbox"] if os.geteuid() == 0 else [],
        )
        try:
            page = browser.new_context().new_page()
            for file in files:
                page.goto(file.as_uri())
                seen.append(
                    page.evaluate("""() => ({
                    root: document.documentElement.localName,
                    errors: document.getElementsByTagName('parsererror').length,
                    svgs: document.getElementsByTagNameNS('http://www.w3.org/2000/svg', 'svg').length,
                    labels: [...document.getElementsByTagNameNS('http://www.w3.org/2000/svg', 'title')]
                              .map(t => t.textContent)})""")
                )
        finally:
            browser.close()
    return seen


def test_a_title_holding_control_characters_leaves_the_svg_valid_in_chromium(tmp_path):
    store, graph = hostile_title_home(tmp_path)
    report = tmp_path / "reports" / f"{graph.task_id}.md"
    write_report(store, graph.task_id, report)

    svg, html = opened_in_chromium([report.with_suffix(".svg"), report.with_suffix(".html")])

    assert svg["root"] == "svg" and svg["errors"] == 0, svg
    assert html["root"] == "html" and html["errors"] == 0 and html["svgs"] == 1, html
    for drawn in (svg, html):  # the title is shown, its controls as visible escapes
        assert any("Vitamin D\\x00 and falls\\x01" in label for label in drawn["labels"]), drawn["labels"]
        assert not any("\u202e" in label or "\x00" in label for label in drawn["labels"])

    markdown = report.read_text()
    tokens = MarkdownIt("commonmark").parse(markdown)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert not [h for h in headings if "Forged" in h], headings
    assert "in # Forged heading" in markdown and "\x00" not in markdown and "\x1b" not in markdown
