"""A task's report for people: the answer, the claims by topic with their evidence, a picture of
the evidence graph and a numbered reference list, as Markdown and as one standalone HTML page.

Everything is read from the *effective* graph exactly as the MCP tools show it (the readers of
:mod:`lyra_tools.explore` and :mod:`lyra_tools.answer_view`): a reviewer's corrected relation
replaces the model's, rejected claims are left out, and pages of blocked domains are gone from
the sentences, the graph and the references.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
from pydantic import BaseModel

from lyra_core.answer import AnswerView, votes_text
from lyra_core.cells import cell_list
from lyra_core.evidence_facts import facts_line
from lyra_core.hypothesis import HYPOTHESIS, reading_note
from lyra_core.scoring import REFUTES, SUPPORTS, VoteCounts, strongest_votes
from lyra_resources.generations import graph_note
from lyra_resources.store import LyraStore
from lyra_tools import explore
from lyra_tools.answer_view import claim_votes, read_answer, source_edges, source_rows
from lyra_tools.explore.overlay import effective_topics
from lyra_tools.explore.paging import nan_to_none
from lyra_tools.explore.queries import fetch_rows, in_ids, task_topics
from lyra_tools.report_graph import GraphLink, GraphNode, evidence_svg, svg_text
from lyra_tools.report_refs import Reference, References

CLAIMS_SHOWN = 15  # the graph stays readable at about this many claims
SOURCES_QUOTED = 3  # per side of a claim: the strongest sentence of each of the strongest sources
SENTENCE_CHARS = 420
OTHER_TOPIC = "Other claims"


class ReportSentence(BaseModel):
    """A passage of a source that supports or refutes a claim, cited as ``[ref]``."""

    relation: str
    confidence: float
    text: str
    ref: int
    model_relation: str | None = None  # the model's label, when a reviewer corrected it
    reason: str | None = None  # the judge's reason in one line
    facts: str = ""  # what a scientist weighs: "RCT, n = 861, HR 0.63 (0.35–1.13)" (lyra_core.evidence_facts)
    paper: str = ""  # the paper's DOI, PMID, URL or id, as the passage names it
    paper_link: str | None = None  # where it opens: an http(s) link, or None (shown as text)


class ReportClaim(BaseModel):
    number: int  # C1, C2, … in the order the report shows them
    claim_id: str
    text: str
    origin: str
    verdict: str
    confidence: float
    uncertainty: float
    supporting: int  # passages (edges) on each side
    refuting: int
    neutral: int
    supporting_votes: int = 0  # the votes that entered the score
    refuting_votes: int = 0
    below_threshold: int = 0  # sources whose strongest passage is under the vote threshold: no vote
    recomputed: bool  # human feedback changed the model's score
    stated_in: int | None = None  # the reference the claim was extracted from
    supports: list[ReportSentence] = []
    refutes: list[ReportSentence] = []
    more_supporting_sources: int = 0  # sources on that side not quoted
    more_refuting_sources: int = 0


class ReportTopic(BaseModel):
    label: str
    contradicted: bool
    claims: list[ReportClaim]


class Report(BaseModel):
    task_id: str
    query: str
    status: str
    note: str | None = None
    answer: AnswerView | None = None
    answer_refs: dict[str, int] = {}  # source id of each paper for or against → reference number
    answer_supports: list[ReportSentence] = []  # the hypothesis's strongest passage in each paper for it
    answer_refutes: list[ReportSentence] = []
    topics: list[ReportTopic] = []
    claims_in_force: int = 0
    feedback: list[str] = []  # what human feedback changed, one phrase each
    claim_nodes: list[GraphNode] = []
    paper_nodes: list[GraphNode] = []
    links: list[GraphLink] = []
    references: list[Reference] = []

    @property
    def claims(self) -> list[ReportClaim]:
        return [c for t in self.topics for c in t.claims]

    def svg(self) -> str:
        return svg_text(evidence_svg(self.claim_nodes, self.paper_nodes, self.links))


def _order(claim: dict[str, Any]) -> tuple:
    """The user's claims first, then by relevance to the question, evidence weight and confidence."""
    return (claim["origin"] != "user", -round(float(nan_to_none(claim["relevance"]) or 0.0), 2),
            -(claim["supporting_count"] + claim["refuting_count"]), -float(claim["confidence"] or 0.0),
            claim["claim_id"])


def claims_in_force(conn: duckdb.DuckDBPyConnection, task_id: str,
                    overlay: explore.Overlay) -> list[dict[str, Any]]:
    """Adopted claims no one rejected (the hypothesis aside), with effective scores, in report order."""
    claims = [c for c in explore.load_claims(conn, task_id, overlay)
              if not c["rejected"] and c["origin"] != HYPOTHESIS and c.get("verdict") is not None]
    return sorted(claims, key=_order)


def top_claims(store: LyraStore, task_id: str, limit: int = 10) -> pd.DataFrame:
    """The first ``limit`` claims in force, in report order, with their effective scores."""
    with store.connect() as conn:
        overlay = explore.load_overlay(conn, task_id)
        claims = claims_in_force(conn, task_id, overlay)[:limit]
        votes = claim_votes(conn, task_id, claims, overlay)
    columns = ["claim_id", "text", "origin", "verdict", "confidence", "uncertainty", "controversy",
               "supporting_count", "refuting_count", "neutral_count", "independent_sources"]
    return pd.DataFrame([{**{k: c[k] for k in columns}, **_vote_fields(votes[c["claim_id"]])} for c in claims],
                        columns=[*columns, "supporting_votes", "refuting_votes", "below_threshold"])


def _vote_fields(votes: VoteCounts) -> dict[str, int]:
    return {"supporting_votes": votes.supporting, "refuting_votes": votes.refuting,
            "below_threshold": votes.below_threshold}


def _by_topic(conn: duckdb.DuckDBPyConnection, task_id: str, overlay: explore.Overlay,
              claims: list[dict[str, Any]], chosen: list[dict[str, Any]]) -> list[tuple[str, bool, list]]:
    """The chosen claims grouped under their topic, largest topic first; the rest last."""
    rows = task_topics(conn, task_id)
    refuted = {c["claim_id"] for c in claims if c["refuting_count"] > 0}
    members = {r["topic_id"]: cell_list(r["claim_ids"]) for r in rows}
    placed: set[str] = set()
    groups = []
    for topic in effective_topics(rows, overlay.rejected, refuted):
        mine = [c for c in chosen if c["claim_id"] in members[topic.topic_id] and c["claim_id"] not in placed]
        placed |= {c["claim_id"] for c in mine}
        if mine:
            groups.append((topic.label, topic.has_contradiction, mine))
    rest = [c for c in chosen if c["claim_id"] not in placed]
    if rest:
        groups.append((OTHER_TOPIC, any(c["claim_id"] in refuted for c in rest), rest))
    return groups


def _strongest_per_source(edges: list[dict[str, Any]], relation: str) -> list[dict[str, Any]]:
    """The strongest edge of each source on one side, strongest source first."""
    best: dict[str, dict[str, Any]] = {}
    for edge in sorted(edges, key=lambda e: (-e["nli_confidence"], e["edge_id"])):
        if edge["relation"] == relation:
            best.setdefault(edge["paper"], edge)
    return list(best.values())


def _sentence(edge: dict[str, Any], refs: References) -> ReportSentence:
    reference = refs.reference(edge["paper"])
    paper, link = reference.identifier
    return ReportSentence(relation=edge["relation"], confidence=round(float(edge["nli_confidence"]), 2),
                          text=explore.clip(" ".join((edge.get("text") or "").split()), SENTENCE_CHARS)[0],
                          ref=reference.number,
                          model_relation=edge["model_relation"] if edge["human_corrected"] else None,
                          reason=edge.get("reason") or None,
                          facts=facts_line(edge.get("study_design"), edge.get("sample_size"), edge.get("effect_figures")),
                          paper=paper, paper_link=link)


def _feedback(overlay: explore.Overlay, edges: list[dict[str, Any]]) -> list[str]:
    done = []
    corrected = sum(e["human_corrected"] for e in edges)
    if corrected:
        done.append(f"{corrected} evidence relation{'s' * (corrected != 1)} corrected by a reviewer")
    if overlay.rejected:
        rejected = len(overlay.rejected)
        done.append(f"{rejected} claim{'s' * (rejected != 1)} rejected and left out")
    if overlay.blocked:
        done.append("sources from blocked domains left out: " + ", ".join(sorted(overlay.blocked)))
    return done


def _stated_in(conn: duckdb.DuckDBPyConnection, task_id: str, claim_ids: list[str],
               overlay: explore.Overlay) -> dict[str, str]:
    """The source each claim was extracted from (paper id, or page id of a page that is no paper),
    unless its domain is blocked; the user's own claims have none."""
    cond, params, post = in_ids("c.claim_id", claim_ids)
    found = fetch_rows(
        conn, "SELECT c.claim_id, p.page_id, coalesce(p.paper_id, p.page_id) AS source FROM claims c "
              "JOIN fragments f ON f.task_id = c.task_id AND f.fragment_id = c.source_fragment_id "
              f"JOIN pages p ON p.task_id = f.task_id AND p.page_id = f.page_id WHERE c.task_id = ? AND {cond}",
        [task_id, *params])
    return {r["claim_id"]: r["source"] for r in found if r["page_id"] not in overlay.blocked_pages
            and (post is None or r["claim_id"] in post)}


def read_report(store: LyraStore, task_id: str, limit: int = CLAIMS_SHOWN) -> Report:
    """The report's content from the effective graph; ExploreError for an unknown task."""
    with store.connect() as conn:
        task = explore.require_task(conn, task_id)
        overlay = explore.load_overlay(conn, task_id)
        answer = read_answer(conn, task_id, overlay)
        claims = claims_in_force(conn, task_id, overlay)
        chosen = claims[:limit]
        groups = _by_topic(conn, task_id, overlay, claims, chosen)
        edges = source_edges(conn, task_id, [c["claim_id"] for c in chosen], overlay)
        stated = _stated_in(conn, task_id, [c["claim_id"] for c in chosen], overlay)
        votes = claim_votes(conn, task_id, chosen, overlay)
        answer_ids = [p.paper_id for p in (answer.papers_for + answer.papers_against)] if answer else []
        hypothesis_edges = source_edges(conn, task_id, [answer.hypothesis_claim_id], overlay) \
            if answer and answer.hypothesis_claim_id else []
        rows = source_rows(conn, task_id, [*answer_ids, *(e["paper"] for e in edges), *stated.values()])
    pages = {e["paper"]: {"title": e["title"], "url": e["url"]} for e in [*hypothesis_edges, *edges]}
    refs = References(rows, pages)
    report = Report(task_id=task_id, query=task["query"], status=task["status"], answer=answer,
                    answer_refs={p: refs.cite(p) for p in answer_ids}, claims_in_force=len(claims),
                    feedback=_feedback(overlay, edges))
    if answer is not None:  # what each paper for / against the hypothesis says, its strongest passage
        for relation, papers, out in ((SUPPORTS, answer.papers_for, report.answer_supports),
                                      (REFUTES, answer.papers_against, report.answer_refutes)):
            voters = {p.paper_id for p in papers}
            out += [_sentence(e, refs) for e in _strongest_per_source(hypothesis_edges, relation)
                    if e["paper"] in voters][:SOURCES_QUOTED]
    number = 0
    for label, contradicted, members in groups:
        topic = ReportTopic(label=label, contradicted=contradicted, claims=[])
        for c in members:
            number += 1
            mine = [e for e in edges if e["claim_id"] == c["claim_id"]]
            sides = {r: _strongest_per_source(mine, r) for r in (SUPPORTS, REFUTES)}
            source = stated.get(c["claim_id"])
            claim = ReportClaim(
                number=number, stated_in=refs.cite(source) if source in rows else None, claim_id=c["claim_id"],
                text=" ".join(c["text"].split()), origin=c["origin"],
                verdict=c["verdict"], confidence=float(c["confidence"]), uncertainty=float(c["uncertainty"]),
                supporting=c["supporting_count"], refuting=c["refuting_count"], neutral=c["neutral_count"],
                recomputed=bool(c["recomputed"]), **_vote_fields(votes[c["claim_id"]]),
                supports=[_sentence(e, refs) for e in sides[SUPPORTS][:SOURCES_QUOTED]],
                refutes=[_sentence(e, refs) for e in sides[REFUTES][:SOURCES_QUOTED]],
                more_supporting_sources=max(0, len(sides[SUPPORTS]) - SOURCES_QUOTED),
                more_refuting_sources=max(0, len(sides[REFUTES]) - SOURCES_QUOTED))
            topic.claims.append(claim)
            report.claim_nodes.append(GraphNode(number=number, label=claim.text, full=claim.text))
            # one line per source: its strongest SUPPORTS or REFUTES edge on this claim
            for vote in strongest_votes(sorted(mine, key=lambda e: e["edge_id"]), lambda e: e["paper"],
                                        lambda e: e["relation"], lambda e: float(e["nli_confidence"])):
                report.links.append(GraphLink(claim=number, ref=refs.cite(vote["paper"]),
                                              relation=vote["relation"],
                                              confidence=round(float(vote["nli_confidence"]), 2)))
        report.topics.append(topic)
    report.references = refs.items
    linked = {link.ref for link in report.links}
    report.paper_nodes = [GraphNode(number=r.number, label=r.short, full=r.text()) for r in refs.items
                          if r.number in linked]
    report.note = graph_note(store, task_id)
    return report


# -- Markdown ------------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<])")  # what starts markup inside a line


def md(text: str) -> str:
    """Text safe inside Markdown: characters that would start markup are escaped."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def score_text(claim: ReportClaim) -> str:
    """Verdict, confidence ± uncertainty and the votes that entered it, in one line."""
    line = (f"{claim.verdict.replace('_', ' ')} · confidence {claim.confidence:.2f} ± {claim.uncertainty:.2f}"
            " · votes: " + votes_text(claim.supporting_votes, claim.refuting_votes, claim.below_threshold))
    return line + (" · rescored after human feedback" if claim.recomputed else "")


def sentence_note(s: ReportSentence) -> str:
    """The judge's confidence, and the model's label when a reviewer corrected it."""
    if s.model_relation:
        return f"set by a reviewer; the model said {s.model_relation.lower()}"
    return f"{s.confidence:.2f}"


def sentence_md(word: str, s: ReportSentence) -> str:
    """One passage as a Markdown list item: its relation, text and reference, then what a scientist
    weighs (design, size, figures) and its paper's identifier as a link, then the judge's reason."""
    paper = f"[{md(s.paper)}](<{s.paper_link}>)" if s.paper_link else md(s.paper)
    weighed = " · ".join(p for p in (md(s.facts), paper) if p)
    return (f"- {word} ({sentence_note(s)}): “{md(s.text)}” [{s.ref}]" + (f" — {weighed}" if weighed else "")
            + (f"  \n  _why: {md(s.reason)}_" if s.reason else ""))


def hypothesis_label(answer: AnswerView) -> str:
    """"Hypothesis judged", with how it was read from the question where that is recorded."""
    note = reading_note(answer.question_reading)
    return f"Hypothesis judged ({note})" if note else "Hypothesis judged"


def answer_md(report: Report) -> list[str]:
    answer = report.answer
    if answer is None:
        return ["No answer yet: the task has not been answered (run it).", ""]
    lines = [f"**{md(answer.line)}**", ""]
    if answer.hypothesis:
        lines.append(f"- {hypothesis_label(answer)}: {md(answer.hypothesis)}")
    for side, papers in (("For", answer.papers_for), ("Against", answer.papers_against)):
        if papers:
            lines.append(f"- {side}: " + "; ".join(
                f"{md(p.title or p.paper_id)} [{report.answer_refs[p.paper_id]}]" for p in papers))
    lines += [f"- {md(c.verdict)}: {md(c.text)}" for c in answer.claims]
    lines += [sentence_md(s.relation.capitalize(), s) for s in [*report.answer_supports, *report.answer_refutes]]
    return [*lines, ""]


def report_markdown(store: LyraStore, task_id: str, limit: int = CLAIMS_SHOWN,
                    svg_name: str | None = None) -> str:
    """The report as Markdown; ``svg_name`` is the graph's file beside it, linked as an image."""
    return markdown(read_report(store, task_id, limit), svg_name)


def markdown(report: Report, svg_name: str | None = None) -> str:
    lines = [f"# {md(report.query)}", "", *answer_md(report)]
    if report.note:
        lines += [f"> {md(report.note)}", ""]
    lines += [f"*{intro(report)}*", ""]
    for topic in report.topics:
        flag = " (contradicting evidence)" if topic.contradicted else ""
        lines += [f"## Topic: {md(topic.label)}{flag}", ""]
        for c in topic.claims:
            mine = " (your claim)" if c.origin == "user" else ""
            lines += [f"### C{c.number}. {md(c.text)}{mine}", "", f"**{score_text(c)}**"
                      + (f" · stated in [{c.stated_in}]" if c.stated_in else ""), ""]
            for word, side, more in (("Supports", c.supports, c.more_supporting_sources),
                                     ("Refutes", c.refutes, c.more_refuting_sources)):
                lines += [sentence_md(word, s) for s in side]
                if more:
                    lines.append(f"- … and {more} more {word.lower()[:-1]}ing source{'s' * (more != 1)}")
            if not (c.supports or c.refutes):
                lines.append("No source supports or refutes it.")
            lines.append("")
    if not report.topics:
        lines += ["No scored claims yet.", ""]
    lines += ["## Evidence graph", ""]
    if svg_name:
        lines += [f"![Evidence graph: claims and their sources]({svg_name})", ""]
    lines += ["## References", ""]
    for ref in report.references:  # only http(s) links; any other URL is escaped text
        link = f" <{ref.link}>" if ref.link else f" {md(' '.join(ref.url.split()))}" if ref.url else ""
        lines.append(f"{ref.number}. {md(ref.text())}{link}")
    return "\n".join(lines) + "\n"


def intro(report: Report) -> str:
    """What the reader is looking at, and what human feedback changed."""
    shown = len(report.claims)
    line = (f"{shown} of {report.claims_in_force} claims in force, the most relevant to the question, "
            "grouped by topic, each with the strongest passages for and against it (the number beside a passage is "
            "the judge's calibrated probability of that relation; after it stand the study's design and size, "
            f"the figures the passage states and the paper's identifier). Task {report.task_id} ({report.status}).")
    if report.feedback:
        line += " Human feedback applied: " + "; ".join(report.feedback) + "."
    return line


def report_html(store: LyraStore, task_id: str, limit: int = CLAIMS_SHOWN) -> str:
    """The report as one standalone HTML page: inline style and SVG, no script, no other file."""
    from lyra_tools.report_html import render_html

    return render_html(read_report(store, task_id, limit))


def write_report(store: LyraStore, task_id: str, path: Path, limit: int = CLAIMS_SHOWN) -> Path:
    """``path`` (Markdown), and beside it the same report as HTML and the graph as SVG."""
    from lyra_tools.report_html import render_html

    report = read_report(store, task_id, limit)
    path.parent.mkdir(parents=True, exist_ok=True)
    svg = path.with_suffix(".svg")
    svg.write_text(report.svg() + "\n", encoding="utf-8")
    path.write_text(markdown(report, svg.name), encoding="utf-8")
    path.with_suffix(".html").write_text(render_html(report), encoding="utf-8")
    return path
