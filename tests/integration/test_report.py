"""The report: answer, claims by topic, evidence graph (SVG) and references, read from the effective
graph — a real task graph in DuckDB, its answer materialized by Dagster, feedback applied through
the feedback code."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from fixtures.answers import HOSTILE
from fixtures.graphs import CLAIMS, PAPERS
from lyra_core.report.refs import identifier
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.reviewed_graph import report as reports
from lyra_resources.store.reviewed_graph.report import report_html, report_markdown, top_claims, write_report
from lyra_tools import explore
from lyra_tools.feedback.apply import apply_feedback

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def home(built_home):
    """A copy of build_home's home, built once per module."""
    return built_home


def svg_of(html: str) -> ET.Element:
    start, end = html.index("<svg"), html.index("</svg>") + len("</svg>")
    return ET.fromstring(html[start:end])


def lines(svg: ET.Element) -> dict[str, int]:
    found = [e.get("class") for e in svg.iter(f"{SVG}line") if e.get("class")]
    return {k: found.count(k) for k in ("supports", "refutes")}


def test_feedback_shapes_every_part_of_the_report(home):
    store, graph = home
    before = reports.read_report(store, graph.task_id)
    # the claims' lines and the hypothesis's: meta, falls and blog vote for it, whi against
    assert lines(svg_of(report_html(store, graph.task_id))) == {"supports": 4 + 3, "refutes": 3 + 1}
    assert PAPERS["blog"]["url"] in [r.url for r in before.references]

    apply_feedback(
        store, graph.task_id, "claim_reject", {"claim_id": graph.claims["hip"], "reason": "too vague"}
    )
    apply_feedback(
        store,
        graph.task_id,
        "edge_correct",
        {"edge_id": graph.edges[("falls", "meta")], "correct_relation": "supports", "reason": "fewer falls"},
    )
    apply_feedback(store, graph.task_id, "domain_block", {"domain_pattern": "spam-site.com", "reason": "ads"})
    html, text = report_html(store, graph.task_id), report_markdown(store, graph.task_id)

    assert CLAIMS["hip"][0] not in html and CLAIMS["hip"][0] not in text
    for page in (html, text):  # the blocked page is gone from sentences, graph and references
        assert "spam-site.com" not in page.replace("blocked domains left out: spam-site.com", "")
        assert PAPERS["blog"]["title"] not in page and "never break a bone" not in page
    assert "Supports (set by a reviewer; the model said neutral)" in text
    assert '<li class="supports corrected">' in html
    assert "Topic: hip fracture dose" in text and "Topic: falls nursing home" in text
    assert "<h2>Topic: hip fracture dose" in html
    # none: REFUTES meta, SUPPORTS falls; falls: SUPPORTS meta (corrected); user: SUPPORTS meta, REFUTES whi;
    # the hypothesis: SUPPORTS meta and falls, REFUTES whi (the blocked blog's vote is gone)
    svg = svg_of(html)
    assert lines(svg) == {"supports": 3 + 2, "refutes": 2 + 1}
    labels = " ".join(t.text or "" for t in svg.iter(f"{SVG}text"))
    assert "C3" in labels and "C4" not in labels and "miracle" not in labels
    report = reports.read_report(store, graph.task_id)
    assert report.claims_in_force == 3 and "1 claim rejected and left out" in report.feedback
    falls = next(c for c in report.claims if c.claim_id == graph.claims["falls"])
    assert falls.recomputed and falls.supports[0].model_relation == "NEUTRAL"


def test_citations_and_the_reference_list_agree(home):
    store, graph = home
    report = reports.read_report(store, graph.task_id)
    html, text = report_html(store, graph.task_id), report_markdown(store, graph.task_id)
    numbers = [r.number for r in report.references]
    assert numbers == list(range(1, len(numbers) + 1))
    cited = {int(n) for n in re.findall(r'href="#ref-(\d+)"', html)}
    listed = {int(n) for n in re.findall(r'<li id="ref-(\d+)"', html)}
    assert cited and cited <= listed == set(numbers)
    assert {int(n) for n in re.findall(r"\[(\d+)\]", text.split("## References")[0])} <= set(numbers)
    by_number = {r.number: r for r in report.references}
    text_of = {p["title"]: p["text"] for p in PAPERS.values()} | {HOSTILE: PAPERS["falls"]["text"]}
    quoted = [s for c in report.claims for s in c.supports + c.refutes]
    assert len(quoted) == 7  # hip 2, none 2, user 3 (falls has only neutral evidence)
    for s in quoted:  # each sentence's [n] is the reference of the page it was read from
        assert s.text in text_of[by_number[s.ref].title]
    for paper in report.answer.papers_for + report.answer.papers_against:
        assert by_number[report.answer_refs[paper.paper_id]].source_id == paper.paper_id
    # the answer quotes what each paper for / against the hypothesis says, cited as that paper
    assert len(report.answer_supports) == len(report.answer.papers_for) > 0
    assert len(report.answer_refutes) == len(report.answer.papers_against)
    for s, paper in zip(report.answer_supports, report.answer.papers_for, strict=True):
        assert s.relation == "SUPPORTS" and by_number[s.ref].source_id == paper.paper_id
        assert s.text in text_of[by_number[s.ref].title] and f"“{s.text}”" in html
    graph_refs = {link.ref for link in report.links}
    assert graph_refs == {p.number for p in report.paper_nodes} and graph_refs <= set(numbers)

    meta = next(r for r in report.references if r.title == PAPERS["meta"]["title"])
    assert meta.is_paper and meta.doi_url == "https://doi.org/10.1001/jama.2019.0001"
    assert (
        "Smith, Jane Q.; van Beethoven, Ludwig; Müller, Jörg; et al. Vitamin D supplementation and fracture "
        "risk: a meta-analysis of randomized trials. Test Journal; 2019."
    ) in text
    assert '<a href="https://doi.org/10.1001/jama.2019.0001">doi:10.1001/jama.2019.0001</a>' in html
    blog = next(r for r in report.references if r.url == PAPERS["blog"]["url"])
    assert (
        not blog.is_paper
        and blog.text() == "Vitamin D miracle. Web page."
        and blog.link == PAPERS["blog"]["url"]
    )
    assert f'<a href="{PAPERS["blog"]["url"]}">' in html


def test_each_passage_shows_its_studys_design_size_figures_and_the_papers_link(home):
    store, graph = home
    text, html = report_markdown(store, graph.task_id), report_html(store, graph.task_id)
    meta_doi, whi_doi = "https://doi.org/10.1001/jama.2019.0001", "https://doi.org/10.1056/nejmoa055218"
    # the answer line weighs the voting papers by design, in every form of the report
    assert (
        "4 judged — designs: 1 meta-analysis for; 1 RCT against — low certainty (studies disagree; read by word "
        "overlap only)**" in text
    )
    assert (
        "4 judged — designs: 1 meta-analysis for; 1 RCT against — low certainty (studies disagree; read by word "
        "overlap only)</p>" in html
    )
    # the meta-analysis's passage: its design and figures, its DOI as a link; the trial's: design and size
    assert (
        f"(RR 0.70, 95% CI 0.58-0.86).” [2] — meta-analysis, RR 0.7 (0.58–0.86) · "
        f"[doi:10.1001/jama.2019.0001](<{meta_doi}>)"
    ) in text
    assert (
        f"did not reduce hip fractures.” [4] — RCT, n = 36,282 · [doi:10.1056/nejmoa055218](<{whi_doi}>)"
        in text
    )
    assert (
        f'<span class="facts"> — meta-analysis, RR 0.7 (0.58–0.86) · <a class="paper" href="{meta_doi}">'
        "doi:10.1001/jama.2019.0001</a></span>"
    ) in html
    assert f'<span class="facts"> — RCT, n = 36,282 · <a class="paper" href="{whi_doi}">' in html
    # no DOI: the PubMed link; no paper: the page's own http(s) URL; no design stated: none shown
    assert (
        "nursing home residents.” [3] — [PMID 31234567](<https://pubmed.ncbi.nlm.nih.gov/31234567/>)" in text
    )
    assert f'<a class="paper" href="{PAPERS["blog"]["url"]}">' in html
    assert "design not stated" not in text
    assert identifier("p_1", url="javascript:alert(1)") == ("p_1", None)  # never a link


def test_labels_are_escaped_and_the_page_stands_alone(home, tmp_path):
    store, graph = home
    html = report_html(store, graph.task_id)
    assert "<script" not in html and "&lt;script&gt;" in html
    svg = svg_of(html)  # parses as XML although a title holds markup and an ampersand
    assert any(HOSTILE in (t.text or "") for t in svg.iter(f"{SVG}title"))
    assert not re.search(r"<(link|img|iframe|object)\b|\ssrc=", html)
    assert html == report_html(store, graph.task_id)  # the same graph draws the same page

    path = tmp_path / "reports" / f"{graph.task_id}.md"
    write_report(store, graph.task_id, path)
    drawn = ET.parse(path.with_suffix(".svg")).getroot()
    assert drawn.tag == f"{SVG}svg" and lines(drawn) == lines(svg)
    assert f"]({graph.task_id}.svg)" in path.read_text()
    assert path.with_suffix(".html").read_text() == html


def test_the_run_summary_claims_carry_human_feedback(home):
    store, graph = home
    user = graph.claims["user"]
    apply_feedback(store, graph.task_id, "domain_block", {"domain_pattern": "spam-site.com", "reason": "ads"})
    apply_feedback(store, graph.task_id, "claim_reject", {"claim_id": graph.claims["none"], "reason": "dup"})
    claims = top_claims(store, graph.task_id).set_index("claim_id")
    assert graph.claims["none"] not in claims.index and "hypothesis" not in set(claims["origin"])
    effective = explore.claim_evidence(store, user, graph.task_id).score
    assert claims.loc[user, "confidence"] == pytest.approx(effective.confidence)
    assert claims.loc[user, "supporting_count"] == effective.supporting_count == 1


def test_a_task_without_a_graph_gets_a_report_that_says_so(tmp_path):
    store = LyraStore.at(tmp_path / "home")
    task_id = store.create_task("Does zinc shorten colds?").id
    path = tmp_path / "reports" / f"{task_id}.md"
    write_report(store, task_id, path)
    html = path.with_suffix(".html").read_text()
    assert "No answer yet" in html and "No scored claims yet." in html and "No source is cited." in html
    assert lines(svg_of(html)) == {"supports": 0, "refutes": 0}
    assert "## References" in path.read_text()


def test_the_report_says_how_far_to_trust_the_judge_with_its_measured_figures(home, tmp_path):
    import json

    from lyra_resources.store.reviewed_graph.report import JUDGE_FIGURES, trust_line

    store, graph = home
    figures = json.loads(JUDGE_FIGURES.read_text())
    line = trust_line()
    assert line.startswith("How far to trust this:")
    assert f"{figures['judge_whole_abstracts']['value']:.2f}" in line
    assert f"{figures['judge_whole_abstracts_stated']['value']:.2f}" in line
    assert f"{figures['judge_scifact_retrieved']['value']:.2f}" in line
    assert f"{figures['judge_scifact_oracle']['value']:.2f}" in line
    assert f"*{line}*" in report_markdown(store, graph.task_id)
    assert line in report_html(store, graph.task_id)
    assert trust_line(tmp_path / "missing.json") is None  # no figures recorded: no line, rather than a guess


def test_the_graph_holds_the_hypothesis_joined_to_the_papers_that_voted_on_it(home):
    store, graph = home
    report = reports.read_report(store, graph.task_id)
    answer = report.answer
    voted = {(report.answer_refs[p.paper_id], "SUPPORTS") for p in answer.papers_for} | {
        (report.answer_refs[p.paper_id], "REFUTES") for p in answer.papers_against
    }
    assert voted and {(link.ref, link.relation) for link in report.links if link.claim == 0} == voted
    svg = svg_of(report_html(store, graph.task_id))
    labels = [t.text or "" for t in svg.iter(f"{SVG}text")]
    assert any(label.startswith("H " + answer.hypothesis[:20]) for label in labels)
    titles = [t.text or "" for t in svg.iter(f"{SVG}title")]
    assert sum(title.startswith("H — [") for title in titles) == len(voted)
