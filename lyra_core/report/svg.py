"""The report's picture of the evidence graph: claims in one column, papers in the other, as SVG.

One line joins a claim and a paper when the paper holds evidence on the claim: its strongest
non-neutral relation in the effective graph, SUPPORTS in blue and REFUTES in dashed vermillion
(colours that colour-blind readers and greyscale printers still tell apart), thicker when the
judge is surer. The layout is fixed by the order of claims and reference numbers, so the same
graph always draws the same picture. Built with ElementTree, which escapes every label.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from pydantic import BaseModel

from lyra_core.scoring import REFUTES, SUPPORTS
from lyra_core.untrusted_text import xml_text

SVG_NS = "http://www.w3.org/2000/svg"
COLOURS = {SUPPORTS: "#0072B2", REFUTES: "#D55E00"}  # Okabe–Ito blue and vermillion
DASH = {SUPPORTS: None, REFUTES: "6 3"}
WIDTH = 960
ROW = 22  # vertical pitch of the longer column
TOP = 64  # room for the title and legend
CLAIM_X, PAPER_X = 360, 600  # the two columns' node positions
LABEL_CHARS = 54


HYPOTHESIS_NODE = 0  # the question's hypothesis, drawn as ``H`` above the claims ``C1``, ``C2`` …


def claim_tag(number: int) -> str:
    """How the graph names a claim node: ``H`` for the hypothesis, ``C3`` for the report's claim 3."""
    return "H" if number == HYPOTHESIS_NODE else f"C{number}"


class GraphNode(BaseModel):
    """A claim (``C3``), the hypothesis (``H``) or a paper (``[7]``) drawn as a labelled dot."""

    number: int
    label: str
    full: str  # the whole text, shown as a tooltip


class GraphLink(BaseModel):
    claim: int  # claim number
    ref: int  # reference number
    relation: str  # SUPPORTS or REFUTES
    confidence: float


def _short(text: str, limit: int = LABEL_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _ys(count: int, height: float) -> list[float]:
    """``count`` positions spread evenly over ``height`` below the legend."""
    if count == 0:
        return []
    step = height / count
    return [round(TOP + step * (i + 0.5), 1) for i in range(count)]


def _node(svg: ET.Element, x: float, y: float, text: str, full: str, anchor: str, css: str) -> None:
    group = ET.SubElement(svg, "g", {"class": css})
    ET.SubElement(group, "title").text = full
    ET.SubElement(group, "circle", cx=str(x), cy=str(y), r="3.5")
    dx = -8 if anchor == "end" else 8
    label = ET.SubElement(group, "text", {"x": str(x + dx), "y": str(y + 4), "text-anchor": anchor})
    label.text = text


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _legend(svg: ET.Element, claims: int, papers: int, links: Sequence[GraphLink]) -> None:
    counts = {r: sum(link.relation == r for link in links) for r in (SUPPORTS, REFUTES)}
    ET.SubElement(svg, "text", {"x": "8", "y": "18", "class": "heading"}).text = (
        f"{_count(claims, 'claim')} · {_count(papers, 'source')} · {_count(len(links), 'link')} (one per source and "
        "claim: "
        "its strongest non-neutral relation)"
    )
    x = 8
    for relation, word in ((SUPPORTS, "supports"), (REFUTES, "refutes")):
        attrs = {
            "x1": str(x),
            "y1": "38",
            "x2": str(x + 34),
            "y2": "38",
            "stroke": COLOURS[relation],
            "stroke-width": "2.5",
        }
        if dash := DASH[relation]:
            attrs["stroke-dasharray"] = dash
        ET.SubElement(svg, "line", attrs)
        ET.SubElement(svg, "text", x=str(x + 40), y="42").text = f"{word} ({counts[relation]})"
        x += 150
    ET.SubElement(
        svg, "text", {"x": str(x), "y": "42", "class": "note"}
    ).text = "thicker = surer · H = the question's hypothesis · C = claim (as numbered in the report) · [n] = reference"


def evidence_svg(
    claims: Sequence[GraphNode], papers: Sequence[GraphNode], links: Sequence[GraphLink]
) -> ET.Element:
    """The graph as an ``<svg>`` element: ``claims`` top to bottom on the left, ``papers`` on the
    right, ``links`` between them (each one ``<line>`` of class ``supports`` or ``refutes``)."""
    rows = max(len(claims), len(papers), 1)
    height = rows * ROW
    total = TOP + height + 12
    svg = ET.Element(
        "svg",
        {
            "xmlns": SVG_NS,
            "viewBox": f"0 0 {WIDTH} {total}",
            "width": str(WIDTH),
            "height": str(total),
            "role": "img",
            "font-family": "Helvetica, Arial, sans-serif",
            "font-size": "12",
        },
    )
    ET.SubElement(svg, "title").text = "Evidence graph: claims and the sources that support or refute them"
    ET.SubElement(
        svg, "style"
    ).text = ".heading{font-weight:bold} .note{fill:#555} .claim circle{fill:#333} .paper circle{fill:#777}"
    _legend(svg, len(claims), len(papers), links)
    claim_y = dict(zip((c.number for c in claims), _ys(len(claims), height), strict=True))
    paper_y = dict(zip((p.number for p in papers), _ys(len(papers), height), strict=True))
    edges = ET.SubElement(svg, "g", {"class": "links", "fill": "none", "stroke-opacity": "0.75"})
    # refutations drawn last, so the rarer relation is not hidden under the common one
    for link in sorted(links, key=lambda k: (k.relation == REFUTES, k.claim, k.ref)):
        if link.claim not in claim_y or link.ref not in paper_y:
            continue
        attrs = {
            "class": link.relation.lower(),
            "x1": str(CLAIM_X),
            "y1": str(claim_y[link.claim]),
            "x2": str(PAPER_X),
            "y2": str(paper_y[link.ref]),
            "stroke": COLOURS[link.relation],
            "stroke-width": f"{1 + 2.5 * max(0.0, min(1.0, link.confidence)):.2f}",
        }
        if dash := DASH[link.relation]:
            attrs["stroke-dasharray"] = dash
        line = ET.SubElement(edges, "line", attrs)
        ET.SubElement(
            line, "title"
        ).text = f"{claim_tag(link.claim)} — [{link.ref}]: {link.relation.lower()} ({link.confidence:.2f})"
    for claim in claims:
        _node(
            svg,
            CLAIM_X,
            claim_y[claim.number],
            _short(f"{claim_tag(claim.number)}  {claim.label}"),
            claim.full,
            "end",
            "claim",
        )
    for paper in papers:
        _node(
            svg,
            PAPER_X,
            paper_y[paper.number],
            _short(f"[{paper.number}]  {paper.label}"),
            paper.full,
            "start",
            "paper",
        )
    return svg


def svg_text(svg: ET.Element) -> str:
    """The element as XML text, without a declaration, to inline in HTML or write as a file.
    ElementTree escapes markup but writes a NUL or another character XML forbids as it is, which
    no XML parser reads: such characters become visible escapes."""
    return xml_text(ET.tostring(svg, encoding="unicode", method="xml"))
