"""The report as one standalone HTML page: built with ElementTree (every text escaped), a small
inline style that also prints well, the evidence graph as inline SVG; no script, no other file.
Only http(s) URLs and the DOI links Lyra builds become links, and a Content-Security-Policy forbids
all script, so a hostile record cannot run code in the reader's browser."""

from __future__ import annotations

import html
import secrets
import xml.etree.ElementTree as ET

from lyra_core.report.markdown import hypothesis_label, intro, more_sources, score_text, sentence_note
from lyra_core.report.models import Report, ReportClaim, ReportSentence
from lyra_core.report.refs import UNTITLED
from lyra_core.untrusted_text import xml_text

STYLE = """
body{font-family:Georgia,"Times New Roman",serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
 line-height:1.45;color:#111}
h1{font-size:1.6rem;margin-bottom:.4rem} h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ccc}
h3{font-size:1.02rem;margin:1.2rem 0 .2rem} .answer{font-size:1.1rem;font-weight:bold}
.meta,.score,.more{color:#444;font-size:.92rem} .score{margin:.1rem 0 .4rem}
ul.evidence{margin:.2rem 0 .6rem;padding-left:1.2rem} ul.evidence li{margin:.25rem 0}
.supports .rel{color:#0072B2;font-weight:bold} .refutes .rel{color:#D55E00;font-weight:bold}
.corrected{background:#fff3c4} .why{color:#555;font-size:.85rem} .facts{color:#333} .mine{font-weight:normal;color:#555}
a.cite{text-decoration:none} .flag{color:#D55E00;font-size:.85rem;font-weight:normal}
figure{margin:1rem 0} figure svg{max-width:100%;height:auto} figcaption{font-size:.9rem;color:#444}
ol.refs li{margin:.3rem 0} blockquote{border-left:3px solid #ccc;margin:.5rem 0;padding-left:.8rem;color:#444}
@media print{body{margin:0;max-width:none;font-size:10.5pt} a{color:inherit;text-decoration:none}
 figure,li,h3{break-inside:avoid} h2,h3{break-after:avoid}}
"""
# The page runs no script and loads nothing: should a text ever slip through unescaped, the browser
# still refuses to run it or to fetch anything (inline style and the inline SVG need nothing more).
CSP = (
    "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)


def _text(parent: ET.Element, tag: str, text: str, cls: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, {**({"class": cls} if cls else {}), **attrs})
    element.text = text
    return element


def _cite(parent: ET.Element, number: int) -> None:
    """`` [n]`` linking to the reference list, appended after ``parent``'s last child or text."""
    anchor = ET.SubElement(parent, "a", {"class": "cite", "href": f"#ref-{number}"})
    anchor.text = f"[{number}]"
    anchor.tail = ""
    previous = list(parent)[-2] if len(parent) > 1 else None
    if previous is not None:
        previous.tail = (previous.tail or "") + " "
    else:
        parent.text = (parent.text or "") + " "


def _weighed(item: ET.Element, sentence: ReportSentence) -> None:
    """After the citation: the study's design, size and figures, and the paper's identifier as a
    link where it has an http(s) one."""
    if not (sentence.facts or sentence.paper):
        return
    lead = " — " + sentence.facts + (" · " if sentence.facts and sentence.paper else "")
    if sentence.paper_link:
        _text(_text(item, "span", lead, "facts"), "a", sentence.paper, "paper", href=sentence.paper_link)
    else:
        _text(item, "span", lead + sentence.paper, "facts")


def _why(item: ET.Element, sentence: ReportSentence) -> None:
    """The judge's reason under a passage, in a smaller line."""
    if sentence.reason:
        _text(item, "div", f"why: {sentence.reason}", "why")


def _answer(body: ET.Element, report: Report) -> None:
    answer = report.answer
    for line in report.answer_lines():
        _text(body, "p", line, "answer")
    if answer is None:
        if report.checked:
            items = ET.SubElement(body, "ul")
            for checked in report.checked:
                _text(
                    items,
                    "li",
                    f"{checked.verdict.replace('_', ' ')} ({checked.confidence:.2f}): {checked.text}",
                )
        return
    items = ET.SubElement(body, "ul")
    if answer.hypothesis:
        _text(items, "li", f"{hypothesis_label(answer)}: {answer.hypothesis}")
    for side, papers in (("For", answer.papers_for), ("Against", answer.papers_against)):
        if papers:
            item = _text(items, "li", f"{side}:")
            for i, paper in enumerate(papers):
                span = ET.SubElement(item, "span")
                span.text = (" " if i == 0 else "; ") + (paper.title or UNTITLED)
                _cite(item, report.answer_refs[paper.paper_id])
    for claim in answer.claims:
        _text(items, "li", f"{claim.verdict.replace('_', ' ')}: {claim.text}")
    if not len(items):
        body.remove(items)
    if report.answer_supports or report.answer_refutes:
        passages = ET.SubElement(body, "ul", {"class": "evidence"})
        for word, sentences in (("Supports", report.answer_supports), ("Refutes", report.answer_refutes)):
            for s in sentences:
                item = ET.SubElement(
                    passages, "li", {"class": word.lower() + (" corrected" if s.model_relation else "")}
                )
                _text(item, "span", word, "rel").tail = f" ({sentence_note(s)}): “{s.text}”"
                _cite(item, s.ref)
                _weighed(item, s)
                _why(item, s)
    _caveats(body, report)


def _caveats(body: ET.Element, report: Report) -> None:
    """This answer's own weaknesses, then the best-ranked papers that cast no vote and why."""
    if report.caveats:
        _text(body, "p", "How far to trust this answer", "caveats")
        items = ET.SubElement(body, "ul", {"class": "caveats"})
        for caveat in report.caveats:
            _text(items, "li", caveat)
    if report.uncounted:
        _text(body, "p", "Best-ranked papers that cast no vote", "caveats")
        items = ET.SubElement(body, "ul", {"class": "uncounted"})
        for paper in report.uncounted:
            if paper.ref:
                item = _text(items, "li", paper.title)
                _cite(item, paper.ref)
                item[-1].tail = f": {paper.reason}"
            else:
                _text(items, "li", f"{paper.title}: {paper.reason}")


def _claim(section: ET.Element, claim: ReportClaim) -> None:
    heading = _text(section, "h3", f"C{claim.number}. {claim.text}", id=f"claim-{claim.number}")
    if claim.origin == "user":
        _text(heading, "span", " (your claim)", "mine")
    if claim.stated_in:
        score = _text(section, "p", score_text(claim) + " · stated by", "score")
        _cite(score, claim.stated_in)
        if claim.stated_facts:
            score[-1].tail = f" ({claim.stated_facts})"
    else:
        _text(section, "p", score_text(claim), "score")
    if not (claim.supports or claim.refutes):
        _text(section, "p", "No source supports or refutes it.", "more")
        return
    items = ET.SubElement(section, "ul", {"class": "evidence"})
    for word, side, more in (
        ("Supports", claim.supports, claim.more_supporting_sources),
        ("Refutes", claim.refutes, claim.more_refuting_sources),
    ):
        for s in side:
            css = word.lower() + (" corrected" if s.model_relation else "")
            item = ET.SubElement(items, "li", {"class": css})
            _text(item, "span", word, "rel").tail = f" ({sentence_note(s)}): “{s.text}”"
            _cite(item, s.ref)
            _weighed(item, s)
            _why(item, s)
        if more:
            _text(items, "li", f"{more_sources(word, more)} (see the graph)", "more")


def _references(body: ET.Element, report: Report) -> None:
    _text(body, "h2", "References", id="references")
    if not report.references:
        _text(body, "p", "No source is cited.", "meta")
        return
    items = ET.SubElement(body, "ol", {"class": "refs"})
    for ref in report.references:
        text = ref.text()
        if ref.doi_url or ref.web_url:
            text += " "
        elif ref.url:  # no http(s) URL (javascript:, data:, …): shown, never a link
            text += f" {ref.url}"
        item = _text(items, "li", text, id=f"ref-{ref.number}", value=str(ref.number))
        if ref.doi_url:
            _text(item, "a", f"doi:{ref.doi}", href=ref.doi_url)
        elif ref.web_url:
            _text(item, "a", ref.url or "", href=ref.web_url)


def render_html(report: Report) -> str:
    """The page, as text."""
    body = ET.Element("body")
    _text(body, "h1", report.query)
    _answer(body, report)
    if report.note:
        _text(body, "blockquote", report.note)
    _text(body, "p", intro(report), "meta")
    if report.trust:
        _text(body, "p", report.trust, "meta")
    for topic in report.topics:
        section = ET.SubElement(body, "section", {"class": "topic"})
        heading = _text(section, "h2", f"Topic: {topic.label}")
        if topic.contradicted:
            _text(heading, "span", "  contradicting evidence", "flag")
        for claim in topic.claims:
            _claim(section, claim)
    if not report.topics and report.answer is None:  # a question's answer stands for its claims
        _text(body, "p", "No scored claims yet.", "meta")
    _text(body, "h2", "Evidence graph", id="graph")
    figure = ET.SubElement(body, "figure")
    mark = f"\x00evidence-graph-{secrets.token_hex(16)}\x00"  # where the SVG goes; no text can guess it
    figure.text = mark
    _text(
        figure,
        "figcaption",
        "The question's hypothesis (H) and the claims (left, numbered as above) and the sources that hold evidence "
        "on them "
        "(right, numbered as in the references). Each line is a source's strongest relation to the claim.",
    )
    _references(body, report)
    page = ET.tostring(body, encoding="unicode", method="html")
    page = xml_text(page).replace(xml_text(mark), report.svg(), 1)  # a NUL, a bidi control: visible escapes
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(xml_text(report.query))}</title><style>{STYLE}</style></head>\n{page}\n</html>\n"
    )
