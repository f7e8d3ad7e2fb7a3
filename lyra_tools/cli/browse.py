"""``lyra claims`` and ``lyra evidence``: the task's claims and a claim's evidence from the terminal.

They answer with the MCP tools' own readers and models (``get_claims_by_topic`` /
``list_claim_topics`` and ``get_claim_evidence``), so a person sees what an agent sees: the
effective graph, rejected claims hidden unless asked for, human corrections marked. The edge ids
shown are what ``lyra feedback edge-correct`` takes. A terminal gets Rich tables, a pipe plain
lines, and ``--json`` the MCP answer's JSON (one object a line).

The question's hypothesis (the claim the answer judges) is listed first and flagged, and
``lyra evidence TASK`` shows its passages. Beside a score stand the votes that entered it
(lyra_core.answer.votes_text), not the passages: a passage under the vote threshold is no vote.
Beside a passage stand its study's design, size and figures (``study:``) and its paper's DOI,
PMID or URL with the link that opens it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Column, Table

from lyra_core.scoring import VoteCounts
from lyra_core.untrusted_text import json_line
from lyra_resources.store.lyra_store import StoreError
from lyra_tools.cli.common import HomeOption, console, fail, open_store, untrusted

if (
    TYPE_CHECKING
):  # the readers and their models are imported by `lyra claims` and `lyra evidence` when they run
    from lyra_tools.mcp.models import ClaimBrief, ClaimEvidence, EvidenceItem, Topic, TopicClaims

app = typer.Typer()
PAGE = 50  # the MCP tools' largest page; longer listings follow next_cursor


def _topic_claims(store, task_id: str, topic: str, limit: int, include_rejected: bool) -> TopicClaims:
    """Up to ``limit`` claims of ``topic``: the MCP answer's pages joined into one answer."""
    from lyra_tools import explore

    answer = explore.claims_by_topic(store, task_id, topic, min(limit, PAGE), None, include_rejected)
    while answer.next_cursor and len(answer.claims) < limit:
        more = explore.claims_by_topic(
            store, task_id, topic, min(limit - len(answer.claims), PAGE), answer.next_cursor, include_rejected
        )
        answer.claims += more.claims
        answer.next_cursor = more.next_cursor
    return answer


def _all_topics(store, task_id: str) -> list[Topic]:
    from lyra_tools import explore

    page = explore.list_claim_topics(store, task_id, PAGE)
    topics = list(page.topics)
    while page.next_cursor:
        page = explore.list_claim_topics(store, task_id, PAGE, page.next_cursor)
        topics += page.topics
    return topics


HYPOTHESIS_MARK = "[question's hypothesis] "


def _claim_mark(claim: ClaimBrief) -> str:
    return (
        ("[rejected] " if claim.rejected else "")
        + ("★ " if claim.origin == "user" else "")
        + (HYPOTHESIS_MARK if claim.origin == "hypothesis" else "")
    )


def _votes(votes: dict[str, VoteCounts], claim_id: str) -> str:
    from lyra_core.answer import votes_text

    counted = votes.get(claim_id, VoteCounts())
    return votes_text(counted.supporting, counted.refuting, counted.below_threshold)


def _print_claims(groups: list[tuple[str, list[ClaimBrief]]], votes: dict[str, VoteCounts]) -> None:
    """Each group's heading and claims: verdict, confidence ± uncertainty and the votes behind it."""
    from lyra_core.answer import verdict_words

    for heading, claims in groups:
        if not console.is_terminal:
            console.print(untrusted(heading), highlight=False, soft_wrap=True)
            for c in claims:
                console.print(
                    untrusted(
                        f"  {c.claim_id}  {verdict_words(c.verdict)}  {c.confidence:.2f} ± {c.uncertainty:.2f}  "
                        f"votes {_votes(votes, c.claim_id)}  {_claim_mark(c)}{c.text}"
                    ),
                    highlight=False,
                    soft_wrap=True,
                )
            continue
        table = Table(
            Column("claim id", no_wrap=True),
            "verdict",
            "conf. ± unc.",
            "votes",
            "claim",
            title=untrusted(heading),
            title_justify="left",
        )
        for c in claims:
            table.add_row(
                c.claim_id,
                verdict_words(c.verdict),
                f"{c.confidence:.2f} ± {c.uncertainty:.2f}",
                untrusted(_votes(votes, c.claim_id)),
                ("[dim]" if c.rejected else "") + untrusted(_claim_mark(c) + c.text),
            )
        console.print(table)


def _topic_heading(answer: TopicClaims) -> str:
    return f"topic {answer.topic_id} “{answer.topic}”: {answer.total} claim(s)" + (
        f", first {len(answer.claims)} shown" if len(answer.claims) < answer.total else ""
    )


@app.command("claims")
def claims(
    task_id: Annotated[str, typer.Argument(help="the task (lyra task list)")],
    topic: Annotated[
        str | None, typer.Option("--topic", help="one topic, by id or label (default: every topic)")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1000, help="claims shown per topic")] = 20,
    include_rejected: Annotated[
        bool, typer.Option("--include-rejected", help="show rejected claims, marked")
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="the MCP get_claims_by_topic answer, one JSON object per topic and line"),
    ] = False,
    home: HomeOption = None,
) -> None:
    """A task's claims by topic: id, verdict, confidence ± uncertainty and the votes that entered
    it; without --topic, the question's hypothesis (what the answer judges) comes first."""
    from lyra_resources.store.reviewed_graph import answer as reviewed_answer
    from lyra_resources.store.reviewed_graph.records import ExploreError

    store = open_store(home, create=False)
    try:
        names = [topic] if topic else [t.topic_id for t in _all_topics(store, task_id)]
        answers = [_topic_claims(store, task_id, name, limit, include_rejected) for name in names]
        if as_json:
            for answer in answers:
                print(json_line(answer.model_dump_json()))
            return
        hypothesis, votes = reviewed_answer.listed_votes(
            store, task_id, [c.claim_id for a in answers for c in a.claims], with_hypothesis=topic is None
        )
    except (ExploreError, StoreError) as exc:
        raise fail(str(exc)) from exc
    groups = [(_topic_heading(a), a.claims) for a in answers]
    if hypothesis is not None and (include_rejected or not hypothesis.rejected):
        groups.insert(
            0,
            (
                f"the question's hypothesis, the claim the answer judges (its passages: "
                f"lyra evidence {task_id})",
                [hypothesis],
            ),
        )
    if groups:
        _print_claims(groups, votes)
    if not answers:
        console.print(untrusted(f"{task_id} has no claim topics yet (run it: lyra task run {task_id})"))


def _claim_evidence(store, claim_id: str, task_id: str | None, limit: int) -> ClaimEvidence:
    """Up to ``limit`` edges per side: the MCP answer's pages joined into one answer."""
    from lyra_tools import explore

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
    """Title (year) — the paper's DOI, PMID or URL with the link that opens it — trust level."""
    from lyra_core.report.refs import identifier

    s = item.source
    name, link = identifier(s.paper_id or s.page_id or "", s.doi, s.pmid, s.url)
    where = name + (f" <{link}>" if link and link != name else "")
    title = s.title or s.domain or "untitled"
    return (
        f"{title}"
        + (f" ({s.year})" if s.year else "")
        + (f" — {where}" if where else "")
        + (f" [{s.trust_level}]" if s.trust_level else "")
    )


def _edge_marks(item: EvidenceItem) -> str:
    p = item.probabilities or {}
    probs = (
        f"p_sup {p['p_supports']:.2f} p_ref {p['p_refutes']:.2f}" if p else f"conf {item.nli_confidence:.2f}"
    )
    if item.human_corrected:
        return f"{probs}  HUMAN-CORRECTED (model said {item.model_relation})"
    return probs + ("  human-confirmed" if item.human_reviewed else "")


def _print_evidence(answer: ClaimEvidence, votes: dict[str, VoteCounts]) -> None:
    from lyra_core.answer import undecided_note, verdict_words

    score = answer.score
    head = [
        f"claim {answer.claim_id} (task {answer.task_id}, "
        + ("the question's hypothesis" if answer.origin == "hypothesis" else answer.origin)
        + ")"
        + ("  [rejected]" if answer.rejected else "")
        + f": {answer.claim_text}"
    ]
    if score is not None:
        note = undecided_note(score.verdict, score.alpha, score.beta)
        head.append(
            f"score: {verdict_words(score.verdict)} {score.confidence:.2f} ± {score.uncertainty:.2f}  "
            f"votes {_votes(votes, answer.claim_id)}"
            + (f" — {note}" if note else "")
            + ("  (recomputed from human feedback)" if score.recomputed else "")
        )
    else:
        head.append("score: none (the claim was extracted but never judged)")
    if answer.hidden_blocked:
        head.append(f"{answer.hidden_blocked} edge(s) from blocked domains hidden")
    for line in head:
        console.print(untrusted(line), highlight=False, soft_wrap=True)
    for side in ("supports", "refutes", "neutral"):
        items: list[EvidenceItem] = getattr(answer.evidence, side)
        total = answer.totals.get(side, 0)
        title = f"{side.upper()}: {total} edge(s)" + (f", {len(items)} shown" if len(items) < total else "")
        if not console.is_terminal:
            console.print(untrusted(title), highlight=False)
            for item in items:
                lines = [
                    f"  {item.edge_id}  {_edge_marks(item)}",
                    f"    “{item.text}”",
                    *([f"    study: {item.facts}"] if item.facts else []),
                    f"    source: {_source_line(item)}",
                    *([f"    why: {item.reason}"] if item.reason else []),
                ]
                for line in lines:
                    console.print(untrusted(line), highlight=False, soft_wrap=True)
            continue
        if not items:
            continue
        table = Table(
            Column("edge id", no_wrap=True),
            "p / human",
            "fragment",
            "source",
            title=title,
            title_justify="left",
        )
        for item in items:
            fragment = (
                untrusted(item.text)
                + (f"\n[bold]study: {untrusted(item.facts)}[/bold]" if item.facts else "")
                + (f"\n[dim]why: {untrusted(item.reason)}[/dim]" if item.reason else "")
            )
            table.add_row(
                item.edge_id,
                untrusted(_edge_marks(item)).replace("  ", "\n"),
                fragment,
                untrusted(_source_line(item)),
            )
        console.print(table)


@app.command("evidence")
def evidence(
    claim_id: Annotated[
        str | None,
        typer.Argument(
            help="a claim id (lyra claims TASK), or a task id for its question's hypothesis",
            show_default=False,
        ),
    ] = None,
    task_id: Annotated[
        str | None,
        typer.Option(
            "--task",
            help="the claim's task (default: found from the id); alone, the task whose hypothesis to show",
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=500, help="edges shown per side")] = 20,
    as_json: Annotated[
        bool, typer.Option("--json", help="the MCP get_claim_evidence answer as JSON")
    ] = False,
    home: HomeOption = None,
) -> None:
    """A claim's supporting, refuting and neutral edges with their fragments and sources; the edge ids
    are what `lyra feedback edge-correct` takes. Given a task id (or --task alone), the claim is
    the task's hypothesis: the passages behind the answer."""
    from lyra_resources.store.reviewed_graph import answer as reviewed_answer
    from lyra_resources.store.reviewed_graph.records import ExploreError

    try:
        store = open_store(home, create=False)
        claim_id, task_id = reviewed_answer.evidence_claim(store, claim_id, task_id)
        answer = _claim_evidence(store, claim_id, task_id, limit)
        if as_json:
            print(json_line(answer.model_dump_json()))
            return
        votes = reviewed_answer.listed_votes(store, answer.task_id, [answer.claim_id])[1]
    except (ExploreError, StoreError) as exc:
        raise fail(str(exc)) from exc
    _print_evidence(answer, votes)
