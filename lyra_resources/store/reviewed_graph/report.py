"""A task's report read from its reviewed graph, and its files written.

The report is read exactly as the MCP tools and ``lyra export`` read the graph (the readers beside
it): a reviewer's corrected relation replaces the model's,
rejected claims are left out, and pages of blocked domains are gone from the sentences, the graph
and the references. Rendering is :mod:`lyra_core.report`'s; the files are
``<home>/reports/<task>.md`` with the same report as ``.html`` and the graph as ``.svg`` beside
it, each replaced whole (a reader never sees half a file). The ``task_report`` asset writes them
after every run, and feedback that changes the graph writes them again at once: that is why it
sits in the store layer rather than beside the asset, since ``lyra feedback`` rewrites a report
without loading Dagster or the asset graph.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from lyra_core.cells import cell_list
from lyra_core.clipping import clip, nan_to_none
from lyra_core.evidence_facts import facts_line
from lyra_core.fragments import FRAGMENT_MAX_CHARS
from lyra_core.hypothesis import HYPOTHESIS
from lyra_core.report.caveats import TOP_PAPERS, answer_caveats, answer_votes, uncounted_papers
from lyra_core.report.html import render_html
from lyra_core.report.markdown import markdown
from lyra_core.report.models import CheckedClaim, Report, ReportClaim, ReportSentence, ReportTopic
from lyra_core.report.refs import References
from lyra_core.report.svg import HYPOTHESIS_NODE, GraphLink, GraphNode
from lyra_core.scoring import REFUTES, SUPPORTS, VoteCounts, strongest_votes
from lyra_core.tasks import TaskOptions
from lyra_resources.files import replace_text
from lyra_resources.store.generations import graph_note
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.store.reviewed_graph.answer import (
    claim_votes,
    effective_answer,
    source_edges,
    source_rows,
)
from lyra_resources.store.reviewed_graph.overlay import Overlay, effective_topics, load_claims, load_overlay
from lyra_resources.store.reviewed_graph.queries import (
    fetch_rows,
    in_ids,
    paper_facts_of_claims,
    require_task,
    task_topics,
)

if TYPE_CHECKING:  # only top_claims builds a data frame; writing the report needs no pandas
    import pandas as pd

CLAIMS_SHOWN = 15  # the graph stays readable at about this many claims
SOURCES_QUOTED = 3  # per side of a claim: the strongest sentence of each of the strongest sources
SENTENCE_CHARS = FRAGMENT_MAX_CHARS  # a passage whole: the sentence with the finding is never cut
OTHER_TOPIC = "Other claims"


JUDGE_FIGURES = Path(__file__).resolve().parents[2] / "judge_figures.json"  # lyra_resources' package data


def trust_line(path: Path = JUDGE_FIGURES) -> str | None:
    """How far to trust the verdicts: the judge's figures on held-out data (``judge_figures.json``)."""
    if not path.exists():
        return None
    figures = {k: v["value"] for k, v in json.loads(path.read_text()).items() if isinstance(v, dict)}
    # the judge end to end (whole abstracts, its own evidence): a component's figure overstates it
    return (
        "How far to trust this: the verdicts come from a model, not a reviewer. On held-out trials judged "
        "from their whole abstracts, its verdicts on claims about their findings reach macro-F1 "
        f"{figures['judge_whole_abstracts']:.2f} ({figures['judge_whole_abstracts_stated']:.2f} where the "
        "abstract states the finding; Evidence Inference); on SciFact claims, "
        f"{figures['judge_scifact_retrieved']:.2f} with the evidence it finds itself and "
        f"{figures['judge_scifact_oracle']:.2f} given the papers the claims cite. Read each passage "
        "and its reason before relying on a verdict."
    )


def _order(claim: dict[str, Any]) -> tuple:
    """The user's claims first, then by relevance to the question, evidence weight and confidence."""
    return (
        claim["origin"] != "user",
        -round(float(nan_to_none(claim["relevance"]) or 0.0), 2),
        -(claim["supporting_count"] + claim["refuting_count"]),
        -float(claim["confidence"] or 0.0),
        claim["claim_id"],
    )


def claims_in_force(conn: duckdb.DuckDBPyConnection, task_id: str, overlay: Overlay) -> list[dict[str, Any]]:
    """Adopted claims no one rejected (the hypothesis aside), with effective scores, in report order."""
    claims = [
        c
        for c in load_claims(conn, task_id, overlay)
        if not c["rejected"] and c["origin"] != HYPOTHESIS and c.get("verdict") is not None
    ]
    return sorted(claims, key=_order)


def top_claims(store: LyraStore, task_id: str, limit: int = 10) -> pd.DataFrame:
    """The first ``limit`` claims in force, in report order, with their effective scores."""
    import pandas as pd

    with store.connect() as conn:
        overlay = load_overlay(conn, task_id)
        claims = claims_in_force(conn, task_id, overlay)[:limit]
        votes = claim_votes(conn, task_id, claims, overlay)
    columns = [
        "claim_id",
        "text",
        "origin",
        "verdict",
        "confidence",
        "uncertainty",
        "controversy",
        "supporting_count",
        "refuting_count",
        "neutral_count",
        "independent_sources",
    ]
    return pd.DataFrame(
        [{**{k: c[k] for k in columns}, **_vote_fields(votes[c["claim_id"]])} for c in claims],
        columns=[*columns, "supporting_votes", "refuting_votes", "below_threshold"],
    )


def _vote_fields(votes: VoteCounts) -> dict[str, int]:
    return {
        "supporting_votes": votes.supporting,
        "refuting_votes": votes.refuting,
        "below_threshold": votes.below_threshold,
    }


def _by_topic(
    conn: duckdb.DuckDBPyConnection,
    task_id: str,
    overlay: Overlay,
    claims: list[dict[str, Any]],
    chosen: list[dict[str, Any]],
) -> list[tuple[str, bool, list]]:
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
    if link is None and paper == reference.source_id:  # Lyra's own id tells a reader nothing: [n] cites it
        paper = ""
    return ReportSentence(
        relation=edge["relation"],
        confidence=round(float(edge["nli_confidence"]), 2),
        text=clip(" ".join((edge.get("text") or "").split()), SENTENCE_CHARS)[0],
        ref=reference.number,
        model_relation=edge["model_relation"] if edge["human_corrected"] else None,
        reason=edge.get("reason") or None,
        facts=facts_line(edge.get("study_design"), edge.get("sample_size"), edge.get("effect_figures")),
        paper=paper,
        paper_link=link,
    )


def _feedback(overlay: Overlay, edges: list[dict[str, Any]]) -> list[str]:
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


def _stated_in(
    conn: duckdb.DuckDBPyConnection, task_id: str, claim_ids: list[str], overlay: Overlay
) -> dict[str, str]:
    """The source each claim was extracted from (paper id, or page id of a page that is no paper),
    unless its domain is blocked; the user's own claims have none."""
    cond, params, post = in_ids("c.claim_id", claim_ids)
    found = fetch_rows(
        conn,
        "SELECT c.claim_id, p.page_id, coalesce(p.paper_id, p.page_id) AS source FROM claims c "
        "JOIN fragments f ON f.task_id = c.task_id AND f.fragment_id = c.source_fragment_id "
        f"JOIN pages p ON p.task_id = f.task_id AND p.page_id = f.page_id WHERE c.task_id = ? AND {cond}",
        [task_id, *params],
    )
    return {
        r["claim_id"]: r["source"]
        for r in found
        if r["page_id"] not in overlay.blocked_pages and (post is None or r["claim_id"] in post)
    }


def _best_ranked(conn: duckdb.DuckDBPyConnection, task_id: str) -> list[tuple[str, str]]:
    """The task's papers by search rank, best first: id and title."""
    return [
        (r["paper_id"], r["title"] or "")
        for r in fetch_rows(
            conn,
            "SELECT paper_id, title FROM papers WHERE task_id = ? ORDER BY search_rank NULLS LAST, paper_id LIMIT ?",
            [task_id, TOP_PAPERS],
        )
    ]


def read_report(store: LyraStore, task_id: str, limit: int = CLAIMS_SHOWN) -> Report:
    """The report's content from the effective graph; ExploreError for an unknown task."""
    with store.connect() as conn:
        task = require_task(conn, task_id)
        overlay = load_overlay(conn, task_id)
        answer = effective_answer(conn, task_id, overlay)
        claims = claims_in_force(conn, task_id, overlay)
        chosen = claims[:limit]
        groups = _by_topic(conn, task_id, overlay, claims, chosen)
        edges = source_edges(conn, task_id, [c["claim_id"] for c in chosen], overlay)
        stated = _stated_in(conn, task_id, [c["claim_id"] for c in chosen], overlay)
        stated_facts = paper_facts_of_claims(conn, task_id, [c["claim_id"] for c in chosen])
        votes = claim_votes(conn, task_id, chosen, overlay)
        answer_ids = [p.paper_id for p in (answer.papers_for + answer.papers_against)] if answer else []
        hypothesis_edges = (
            source_edges(conn, task_id, [answer.hypothesis_claim_id], overlay)
            if answer and answer.hypothesis_claim_id
            else []
        )
        hypothesis_votes = answer_votes(hypothesis_edges, overlay.rule.min_vote)
        uncounted = (
            uncounted_papers(
                _best_ranked(conn, task_id), hypothesis_edges, {v["paper"] for v in hypothesis_votes}
            )
            if answer and answer.hypothesis_claim_id
            else []
        )
        rows = source_rows(
            conn,
            task_id,
            [*answer_ids, *(e["paper"] for e in edges), *stated.values(), *(p.paper_id for p in uncounted)],
        )
    pages = {e["paper"]: {"title": e["title"], "url": e["url"]} for e in [*hypothesis_edges, *edges]}
    refs = References(rows, pages)
    checked = None
    if TaskOptions.model_validate(
        store.require_task(task_id).options
    ).is_verify:  # claims checked, no question
        checked = [
            CheckedClaim(
                text=" ".join(c["text"].split()), verdict=c["verdict"], confidence=float(c["confidence"])
            )
            for c in claims
            if c["origin"] == "user"
        ]
    report = Report(
        task_id=task_id,
        query=task["query"],
        status=task["status"],
        answer=answer,
        checked=checked,
        answer_refs={p: refs.cite(p) for p in answer_ids},
        claims_in_force=len(claims),
        feedback=_feedback(overlay, edges),
        trust=trust_line(),
        caveats=answer_caveats(answer, hypothesis_votes, uncounted, hypothesis_edges) if answer else [],
        uncounted=[
            p.model_copy(update={"ref": refs.cite(p.paper_id) if p.paper_id in rows else None})
            for p in uncounted
        ],
    )
    if answer is not None:  # what each paper for / against the hypothesis says, its strongest passage
        for relation, papers, out in (
            (SUPPORTS, answer.papers_for, report.answer_supports),
            (REFUTES, answer.papers_against, report.answer_refutes),
        ):
            voters = {p.paper_id for p in papers}
            out += [
                _sentence(e, refs)
                for e in _strongest_per_source(hypothesis_edges, relation)
                if e["paper"] in voters
            ][:SOURCES_QUOTED]
    if (
        answer is not None and answer.hypothesis
    ):  # the hypothesis heads the graph, joined to the papers that voted
        report.claim_nodes.append(
            GraphNode(number=HYPOTHESIS_NODE, label=answer.hypothesis, full=answer.hypothesis)
        )
        report.links += [
            GraphLink(
                claim=HYPOTHESIS_NODE,
                ref=refs.cite(v["paper"]),
                relation=v["relation"],
                confidence=round(float(v["nli_confidence"]), 2),
            )
            for v in sorted(hypothesis_votes, key=lambda v: v["edge_id"])
        ]
    number = 0
    for label, contradicted, members in groups:
        topic = ReportTopic(label=label, contradicted=contradicted, claims=[])
        for c in members:
            number += 1
            mine = [e for e in edges if e["claim_id"] == c["claim_id"]]
            sides = {r: _strongest_per_source(mine, r) for r in (SUPPORTS, REFUTES)}
            source = stated.get(c["claim_id"])
            claim = ReportClaim(
                number=number,
                stated_in=refs.cite(source) if source in rows else None,
                stated_facts=stated_facts.get(c["claim_id"], "") if source in rows else "",
                claim_id=c["claim_id"],
                text=" ".join(c["text"].split()),
                origin=c["origin"],
                verdict=c["verdict"],
                confidence=float(c["confidence"]),
                uncertainty=float(c["uncertainty"]),
                supporting=c["supporting_count"],
                refuting=c["refuting_count"],
                neutral=c["neutral_count"],
                recomputed=bool(c["recomputed"]),
                **_vote_fields(votes[c["claim_id"]]),
                supports=[_sentence(e, refs) for e in sides[SUPPORTS][:SOURCES_QUOTED]],
                refutes=[_sentence(e, refs) for e in sides[REFUTES][:SOURCES_QUOTED]],
                more_supporting_sources=max(0, len(sides[SUPPORTS]) - SOURCES_QUOTED),
                more_refuting_sources=max(0, len(sides[REFUTES]) - SOURCES_QUOTED),
            )
            topic.claims.append(claim)
            report.claim_nodes.append(GraphNode(number=number, label=claim.text, full=claim.text))
            # one line per source: its strongest SUPPORTS or REFUTES edge on this claim
            for vote in strongest_votes(
                sorted(mine, key=lambda e: e["edge_id"]),
                lambda e: e["paper"],
                lambda e: e["relation"],
                lambda e: float(e["nli_confidence"]),
            ):
                report.links.append(
                    GraphLink(
                        claim=number,
                        ref=refs.cite(vote["paper"]),
                        relation=vote["relation"],
                        confidence=round(float(vote["nli_confidence"]), 2),
                    )
                )
        report.topics.append(topic)
    report.references = refs.items
    linked = {link.ref for link in report.links}
    report.paper_nodes = [
        GraphNode(number=r.number, label=r.short, full=r.text()) for r in refs.items if r.number in linked
    ]
    report.note = graph_note(store, task_id)
    return report


def report_markdown(
    store: LyraStore, task_id: str, limit: int = CLAIMS_SHOWN, svg_name: str | None = None
) -> str:
    """The report as Markdown; ``svg_name`` is the graph's file beside it, linked as an image."""
    return markdown(read_report(store, task_id, limit), svg_name)


def report_html(store: LyraStore, task_id: str, limit: int = CLAIMS_SHOWN) -> str:
    """The report as one standalone HTML page: inline style and SVG, no script, no other file."""
    return render_html(read_report(store, task_id, limit))


def write_report(
    store: LyraStore, task_id: str, path: Path | None = None, limit: int = CLAIMS_SHOWN
) -> Report:
    """Write the report to ``path`` (Markdown; default the home's ``reports/<task>.md``) and beside
    it the same report as HTML and the graph as SVG; returns what it wrote."""
    path = path or store.layout.report(task_id)
    report = read_report(store, task_id, limit)
    path.parent.mkdir(parents=True, exist_ok=True)
    svg = path.with_suffix(".svg")
    replace_text(svg, report.svg() + "\n")
    replace_text(path.with_suffix(".html"), render_html(report))
    replace_text(path, markdown(report, svg.name))
    return report
