"""``lyra claims`` and ``lyra evidence``: the task's claims and a claim's evidence from the terminal.

They answer with the MCP tools' own readers and models (``get_claims_by_topic`` /
``list_claim_topics`` and ``get_claim_evidence``), so a person sees what an agent sees: the
effective graph, rejected claims hidden unless asked for, human corrections marked. The edge ids
shown are what ``lyra feedback edge-correct`` takes. A terminal gets Rich tables, a pipe plain
lines, and ``--json`` the MCP answer's JSON (one object a line).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Column, Table

from lyra_resources.store import StoreError
from lyra_tools import explore
from lyra_tools.cli_common import HomeOption, console, fail, open_store
from lyra_tools.explore import ClaimBrief, ClaimEvidence, EvidenceItem, ExploreError, TopicClaims

app = typer.Typer()
PAGE = 50  # the MCP tools' largest page; longer listings follow next_cursor


def _topic_claims(store, task_id: str, topic: str, limit: int, include_rejected: bool) -> TopicClaims:
    """Up to ``limit`` claims of ``topic``: the MCP answer's pages joined into one answer."""
    answer = explore.claims_by_topic(store, task_id, topic, min(limit, PAGE), None, include_rejected)
    while answer.next_cursor and len(answer.claims) < limit:
        more = explore.claims_by_topic(store, task_id, topic, min(limit - len(answer.claims), PAGE),
                                       answer.next_cursor, include_rejected)
        answer.claims += more.claims
        answer.next_cursor = more.next_cursor
    return answer


def _all_topics(store, task_id: str) -> list[explore.Topic]:
    page = explore.list_claim_topics(store, task_id, PAGE)
    topics = list(page.topics)
    while page.next_cursor:
        page = explore.list_claim_topics(store, task_id, PAGE, page.next_cursor)
        topics += page.topics
    return topics


def _claim_mark(claim: ClaimBrief) -> str:
    return ("[rejected] " if claim.rejected else "") + ("★ " if claim.origin == "user" else "")


def _print_claims(answers: list[TopicClaims]) -> None:
    for answer in answers:
        heading = (f"topic {answer.topic_id} “{answer.topic}”: {answer.total} claim(s)"
                   + (f", first {len(answer.claims)} shown" if len(answer.claims) < answer.total else ""))
        if not console.is_terminal:
            console.print(heading, markup=False, highlight=False, soft_wrap=True)
            for c in answer.claims:
                console.print(f"  {c.claim_id}  {c.verdict}  {c.confidence:.2f} ± {c.uncertainty:.2f}  "
                              f"sup {c.supports}  ref {c.refutes}  {_claim_mark(c)}{c.text}",
                              markup=False, highlight=False, soft_wrap=True)
            continue
        table = Table(Column("claim id", no_wrap=True), "verdict", "conf. ± unc.", "sup", "ref", "claim",
                      title=escape(heading), title_justify="left")
        for c in answer.claims:
            table.add_row(c.claim_id, c.verdict, f"{c.confidence:.2f} ± {c.uncertainty:.2f}", str(c.supports),
                          str(c.refutes), ("[dim]" if c.rejected else "") + escape(_claim_mark(c) + c.text))
        console.print(table)


@app.command("claims")
def claims(
    task_id: Annotated[str, typer.Argument(help="the task (lyra task list)")],
    topic: Annotated[str | None, typer.Option("--topic", help="one topic, by id or label (default: every topic)")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1000, help="claims shown per topic")] = 20,
    include_rejected: Annotated[bool, typer.Option("--include-rejected", help="show rejected claims, marked")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="the MCP get_claims_by_topic answer, one JSON object "
                                          "per topic and line")] = False,
    home: HomeOption = None,
) -> None:
    """A task's claims by topic: id, verdict, confidence ± uncertainty, evidence for and against."""
    store = open_store(home, create=False)
    try:
        names = [topic] if topic else [t.topic_id for t in _all_topics(store, task_id)]
        answers = [_topic_claims(store, task_id, name, limit, include_rejected) for name in names]
    except (ExploreError, StoreError) as exc:
        raise fail(str(exc)) from exc
    if as_json:
        for answer in answers:
            print(answer.model_dump_json())
        return
    if not answers:
        console.print(f"{task_id} has no claim topics yet (run it: lyra task run {task_id})", markup=False)
        return
    _print_claims(answers)


def _claim_evidence(store, claim_id: str, task_id: str | None, limit: int) -> ClaimEvidence:
    """Up to ``limit`` edges per side: the MCP answer's pages joined into one answer."""
    size = min(limit, 20)
    answer = explore.claim_evidence(store, claim_id, task_id, size)
    shown = lambda a: max(len(a.evidence.supports), len(a.evidence.refutes), len(a.evidence.neutral))  # noqa: E731
    while answer.next_cursor and shown(answer) < limit:
        more = explore.claim_evidence(store, claim_id, answer.task_id, size, answer.next_cursor)
        for side in ("supports", "refutes", "neutral"):
            getattr(answer.evidence, side).extend(getattr(more.evidence, side))
        answer.next_cursor = more.next_cursor
    for side in ("supports", "refutes", "neutral"):  # a page may carry a side past the limit
        items = getattr(answer.evidence, side)
        if len(items) > limit:
            setattr(answer.evidence, side, items[:limit])
    return answer


def _source_line(item: EvidenceItem) -> str:
    s = item.source
    where = f"doi:{s.doi}" if s.doi else (s.url or s.page_id or "")
    title = s.title or s.domain or "untitled"
    return f"{title}" + (f" ({s.year})" if s.year else "") + (f" — {where}" if where else "") + \
        (f" [{s.trust_level}]" if s.trust_level else "")


def _edge_marks(item: EvidenceItem) -> str:
    p = item.probabilities or {}
    probs = (f"p_sup {p['p_supports']:.2f} p_ref {p['p_refutes']:.2f}" if p else f"conf {item.nli_confidence:.2f}")
    if item.human_corrected:
        return f"{probs}  HUMAN-CORRECTED (model said {item.model_relation})"
    return probs + ("  human-confirmed" if item.human_reviewed else "")


def _print_evidence(answer: ClaimEvidence) -> None:
    score = answer.score
    head = [f"claim {answer.claim_id} (task {answer.task_id}, {answer.origin})"
            + ("  [rejected]" if answer.rejected else "") + f": {answer.claim_text}"]
    if score is not None:
        head.append(f"score: {score.verdict} {score.confidence:.2f} ± {score.uncertainty:.2f}  "
                    f"supports {score.supporting_count}, refutes {score.refuting_count}, neutral {score.neutral_count}"
                    + ("  (recomputed from human feedback)" if score.recomputed else ""))
    else:
        head.append("score: none (the claim was extracted but never judged)")
    if answer.hidden_blocked:
        head.append(f"{answer.hidden_blocked} edge(s) from blocked domains hidden")
    for line in head:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    for side in ("supports", "refutes", "neutral"):
        items: list[EvidenceItem] = getattr(answer.evidence, side)
        total = answer.totals.get(side, 0)
        title = f"{side.upper()}: {total} edge(s)" + (f", {len(items)} shown" if len(items) < total else "")
        if not console.is_terminal:
            console.print(title, markup=False, highlight=False)
            for item in items:
                lines = [f"  {item.edge_id}  {_edge_marks(item)}", f"    “{item.text}”",
                         f"    source: {_source_line(item)}", *([f"    why: {item.reason}"] if item.reason else [])]
                for line in lines:
                    console.print(line, markup=False, highlight=False, soft_wrap=True)
            continue
        if not items:
            continue
        table = Table(Column("edge id", no_wrap=True), "p / human", "fragment", "source", title=title,
                      title_justify="left")
        for item in items:
            fragment = escape(item.text) + (f"\n[dim]why: {escape(item.reason)}[/dim]" if item.reason else "")
            table.add_row(item.edge_id, escape(_edge_marks(item)).replace("  ", "\n"), fragment,
                          escape(_source_line(item)))
        console.print(table)


@app.command("evidence")
def evidence(
    claim_id: Annotated[str, typer.Argument(help="a claim id (lyra claims TASK)")],
    task_id: Annotated[str | None, typer.Option("--task", help="the claim's task (default: found from the id)")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=500, help="edges shown per side")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="the MCP get_claim_evidence answer as JSON")] = False,
    home: HomeOption = None,
) -> None:
    """A claim's supporting, refuting and neutral edges with their fragments and sources; the edge ids
    are what `lyra feedback edge-correct` takes."""
    try:
        answer = _claim_evidence(open_store(home, create=False), claim_id, task_id, limit)
    except (ExploreError, StoreError) as exc:
        raise fail(str(exc)) from exc
    if as_json:
        print(answer.model_dump_json())
        return
    _print_evidence(answer)
