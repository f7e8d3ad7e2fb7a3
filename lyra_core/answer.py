"""The answer to a task's question: the hypothesis's verdict told per paper, and the line that says it.

Claim scores count fragments; a reader asks how many *papers* say yes or no. Each paper gets one
vote: the side (SUPPORTS or REFUTES) of its strongest non-neutral edge, or none when every edge
of the paper is NEUTRAL; it still counts as judged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from lyra_core.certainty import certainty_words
from lyra_core.evidence_facts import designs_text
from lyra_core.hypothesis import HYPOTHESIS, OPEN_QUESTION, reading_note
from lyra_core.report.refs import UNTITLED
from lyra_core.scoring import NEUTRAL, REFUTES, SUPPORTS, UNDECIDED, strongest_votes, undecided_because
from lyra_core.topicality import on_topic
from lyra_core.untrusted import UntrustedText

PAPERS_SHOWN = 5  # papers named for, and against, a hypothesis's answer
OPEN_CLAIMS_SHOWN = 8  # claims an open question's answer lists

# An undecided verdict in words, by why it does not decide (lyra_core.scoring.undecided_because)
UNDECIDED_WORDS = {
    "conflicting": "conflicting evidence: strong votes on both sides",
    "insufficient": "insufficient evidence: too few or too weak votes to decide",
}


class PaperVotes(BaseModel):
    supporting_papers: int = 0
    refuting_papers: int = 0
    papers_judged: int = 0
    papers_below_threshold: int = 0  # judged, their strongest vote under min_vote: no vote
    strongest_support_edge: str | None = None
    strongest_refute_edge: str | None = None
    supporting_paper_ids: list[str] = []  # strongest first
    refuting_paper_ids: list[str] = []
    # the study design of each voting paper, read with its vote's edge (None: an edge without one)
    supporting_designs: list[str | None] = []
    refuting_designs: list[str | None] = []


def strongest_paper_edges(edges: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Each paper's strongest SUPPORTS or REFUTES edge (``paper``, else ``page_id``, names the paper;
    equal confidence: the larger edge id wins), whatever its probability; an off-topic edge
    (lyra_core.topicality) is no vote, as in the claim's score."""
    ordered = sorted(edges, key=lambda e: e["edge_id"], reverse=True)
    return strongest_votes(
        ordered,
        lambda e: e.get("paper") or e["page_id"],
        lambda e: e["relation"] if on_topic(e) else NEUTRAL,
        lambda e: float(e["nli_confidence"]),
    )


def paper_votes(edges: Iterable[Mapping[str, Any]], min_vote: float = 0.0) -> PaperVotes:
    """Votes of the papers behind ``edges`` (dicts with edge_id, relation, nli_confidence and
    ``paper`` — the paper id, or the page id of a page that is no paper). A paper whose strongest
    edge is under ``min_vote`` is judged but votes for neither side, as in the claim's score."""
    edges = [e for e in edges if e.get("paper") or e.get("page_id")]
    judged = {e.get("paper") or e["page_id"] for e in edges}
    votes = strongest_paper_edges(edges)
    best = {
        (v.get("paper") or v["page_id"]): (float(v["nli_confidence"]), v["relation"], v["edge_id"])
        for v in votes
        if float(v["nli_confidence"]) >= min_vote
    }
    design = {(v.get("paper") or v["page_id"]): v.get("study_design") for v in votes}
    strongest: dict[str, tuple[float, str]] = {}
    for conf, relation, edge_id in best.values():
        if relation not in strongest or (conf, edge_id) > strongest[relation]:
            strongest[relation] = (conf, edge_id)
    ranked = sorted(best.items(), key=lambda kv: (-kv[1][0], kv[0]))
    return PaperVotes(
        supporting_papers=sum(v[1] == SUPPORTS for v in best.values()),
        refuting_papers=sum(v[1] == REFUTES for v in best.values()),
        papers_judged=len(judged),
        papers_below_threshold=len(votes) - len(best),
        strongest_support_edge=strongest[SUPPORTS][1] if SUPPORTS in strongest else None,
        strongest_refute_edge=strongest[REFUTES][1] if REFUTES in strongest else None,
        supporting_paper_ids=[p for p, v in ranked if v[1] == SUPPORTS],
        refuting_paper_ids=[p for p, v in ranked if v[1] == REFUTES],
        supporting_designs=[
            design[p] if isinstance(design[p], str) else None for p, v in ranked if v[1] == SUPPORTS
        ],
        refuting_designs=[
            design[p] if isinstance(design[p], str) else None for p, v in ranked if v[1] == REFUTES
        ],
    )


def voting_papers(edges: Iterable[Mapping[str, Any]], min_vote: float = 0.0) -> set[str]:
    """Papers that vote for or against at least one claim (``edges`` of any claims, each with its
    ``claim_id``), each claim's votes counted as :func:`paper_votes` counts the answer's."""
    by_claim: dict[str, list[Mapping[str, Any]]] = {}
    for edge in edges:
        by_claim.setdefault(edge["claim_id"], []).append(edge)
    voters: set[str] = set()
    for mine in by_claim.values():
        votes = paper_votes(mine, min_vote)
        voters.update(votes.supporting_paper_ids + votes.refuting_paper_ids)
    return voters


def votes_text(supporting: int, refuting: int, below_threshold: int, noun: str = "") -> str:
    """The counts shown beside a score, in every view: the votes that entered it, then the sources
    that did not vote for being under the vote threshold, e.g. ``2 for, 0 against (1 more below the
    vote threshold)``; ``noun`` names what voted (``3 papers for, …``)."""
    who = f" {noun}{'s' * (supporting != 1)}" if noun else ""
    text = f"{supporting}{who} for, {refuting} against"
    return text + (f" ({below_threshold} more below the vote threshold)" if below_threshold else "")


def verdict_words(verdict: str) -> str:
    """A verdict as people read it: ``well_supported`` is "well supported", ``likely_false`` "likely false"."""
    return verdict.replace("_", " ")


def undecided_note(verdict: str | None, alpha: float | None, beta: float | None) -> str:
    """Why an undecided verdict does not decide, in words ("" for a verdict that decides)."""
    if verdict not in UNDECIDED:
        return ""
    if alpha is None or beta is None:
        return "the evidence does not decide"
    return UNDECIDED_WORDS[undecided_because(verdict, alpha, beta) or "insufficient"]


def answer_line(
    verdict: str | None,
    confidence: float | None,
    uncertainty: float | None,
    votes: PaperVotes | None,
    open_claims: int | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    certainty: str | None = None,
    certainty_reasons: str | None = None,
) -> str:
    """The one line every view of a task starts with, e.g.
    ``Answer: supported (0.78 ± 0.09) — 6 papers for, 1 against, 23 judged — designs: 1
    meta-analysis and 2 RCTs for; 1 cohort study against``: the voting papers' designs where
    their edges state them (:func:`lyra_core.evidence_facts.designs_text`); an undecided verdict
    says why, given the score's ``alpha`` and ``beta`` (:func:`undecided_note`); a verdict that
    decides says how certain its side's evidence is (lyra_core.certainty), e.g. ``low certainty
    (observational studies only; one study)``."""
    if verdict is None:
        shown = (
            f"{open_claims} most relevant claims follow"
            if open_claims
            else "no adopted claim bears on it yet"
        )
        return f"Answer: open question (no yes/no hypothesis to judge) — {shown}"
    votes = votes or PaperVotes()
    note = undecided_note(verdict, alpha, beta)
    designs = designs_text(votes.supporting_designs, votes.refuting_designs)
    graded = "" if verdict in UNDECIDED else certainty_words(certainty, certainty_reasons)
    return (
        f"Answer: {verdict_words(verdict)} ({confidence or 0:.2f} ± {uncertainty or 0:.2f}) — "
        + votes_text(votes.supporting_papers, votes.refuting_papers, votes.papers_below_threshold, "paper")
        + f", {votes.papers_judged} judged"
        + (f" — designs: {designs}" if designs else "")
        + (f" — {note}" if note else "")
        + (f" — {graded}" if graded else "")
    )


class AnswerPaper(BaseModel):
    paper_id: str
    title: UntrustedText | None = None
    year: int | None = None
    doi: UntrustedText | None = None


class AnswerClaim(BaseModel):
    claim_id: str
    text: UntrustedText
    topic: UntrustedText | None = None
    verdict: str
    confidence: float


class AnswerView(BaseModel):
    """The answer as people see it (human feedback applied): ``line`` first, then its grounds."""

    line: str
    origin: str
    hypothesis: UntrustedText | None = None
    hypothesis_claim_id: str | None = None
    verdict: str | None = None
    confidence: float | None = None
    uncertainty: float | None = None
    controversy: float | None = None
    # how far the votes on the verdict's side can be trusted (lyra_core.certainty): high | moderate |
    # low | very_low, and what lowered it; None for an open question or an answer stored before
    certainty: str | None = None
    certainty_reasons: str | None = None
    supporting_papers: int = 0
    refuting_papers: int = 0
    papers_judged: int = 0
    papers_below_threshold: int = 0  # judged, but their strongest vote is under min_vote: no vote
    # why an undecided verdict does not decide: conflicting (strong votes on both sides) or
    # insufficient (few or weak votes); None for a verdict that decides
    undecided_because: str | None = None
    strongest_support_edge: str | None = None
    strongest_refute_edge: str | None = None
    papers_for: list[AnswerPaper] = []
    papers_against: list[AnswerPaper] = []
    claims: list[AnswerClaim] = []  # an open question's answer: the most relevant claims
    recomputed: bool = False  # human feedback changed the model's answer
    # how the hypothesis was read from the question: rule | fallback (the question without its
    # auxiliary) | open_question; None for an answer stored before readings were recorded
    question_reading: str | None = None
    # the line saying that no passage that voted (or was judged) is about both the hypothesis's
    # exposure and outcome, and which papers come closest; None when one is
    not_addressed: UntrustedText | None = None


class HypothesisScore(BaseModel):
    """The hypothesis (the question read as a claim) and its score: the model's, or the score its
    edges have with human feedback applied (``recomputed``)."""

    claim_id: str
    text: str
    verdict: str | None = None  # None: never scored, read as unverified
    confidence: float | None = None
    uncertainty: float | None = None
    controversy: float | None = None
    alpha: float | None = None
    beta: float | None = None
    certainty: str | None = None
    certainty_reasons: str | None = None
    recomputed: bool = False


class CandidateClaim(BaseModel):
    """An adopted claim that an open question's answer may list, with what ranks it."""

    claim_id: str
    text: str
    relevance: float | None = None  # to the question; a claim without one ranks after those with one
    votes: int = 0  # the votes that entered its score, for and against
    verdict: str | None = None
    confidence: float | None = None
    topic: str | None = None


def open_answer_claims(claims: Iterable[CandidateClaim]) -> list[CandidateClaim]:
    """The claims an open question's answer lists: the most relevant to the question first, then
    those with the most votes, then by claim id; :data:`OPEN_CLAIMS_SHOWN` of them."""
    ranked = sorted(claims, key=lambda c: (c.relevance is None, -(c.relevance or 0.0), -c.votes, c.claim_id))
    return ranked[:OPEN_CLAIMS_SHOWN]


def compose_answer(
    hypothesis: HypothesisScore | None,
    edges: Iterable[Mapping[str, Any]],
    min_vote: float,
    papers: Mapping[str, AnswerPaper],
    claims: Iterable[CandidateClaim] = (),
    question_reading: str | None = None,
    not_addressed: str | None = None,
) -> AnswerView:
    """The answer to a task's question, whoever asks: the ``task_answer`` asset with the model's
    edges and scores, the read side with human feedback applied.

    A yes/no question is answered by its ``hypothesis``: its verdict and score, and one vote per
    paper over its ``edges`` (:func:`paper_votes`, each edge with its ``paper``), the
    :data:`PAPERS_SHOWN` strongest for and against named from ``papers`` (an id it lacks is shown
    as itself). An open question (no hypothesis) is answered by :func:`open_answer_claims` of
    ``claims``. ``not_addressed`` (the line saying no passage or claim is about the question's
    parts) stands, except under an open question that has claims to list."""
    if hypothesis is None:
        chosen = open_answer_claims(claims)
        return AnswerView(
            line=answer_line(None, None, None, None, len(chosen)),
            origin=OPEN_QUESTION,
            question_reading=question_reading,
            not_addressed=None if chosen else not_addressed,
            claims=[
                AnswerClaim(
                    claim_id=c.claim_id,
                    text=c.text,
                    topic=c.topic,
                    verdict=c.verdict or "unverified",
                    confidence=0.5 if c.confidence is None else c.confidence,
                )
                for c in chosen
            ],
        )
    votes = paper_votes(edges, min_vote)
    h = hypothesis
    verdict = h.verdict or "unverified"

    def named(ids: list[str]) -> list[AnswerPaper]:
        return [papers.get(p) or AnswerPaper(paper_id=p) for p in ids[:PAPERS_SHOWN]]

    return AnswerView(
        line=answer_line(
            verdict,
            h.confidence,
            h.uncertainty,
            votes,
            alpha=h.alpha,
            beta=h.beta,
            certainty=h.certainty,
            certainty_reasons=h.certainty_reasons,
        ),
        origin=HYPOTHESIS,
        hypothesis=h.text,
        hypothesis_claim_id=h.claim_id,
        verdict=verdict,
        confidence=h.confidence,
        uncertainty=h.uncertainty,
        controversy=h.controversy,
        certainty=h.certainty,
        certainty_reasons=h.certainty_reasons,
        undecided_because=undecided_because(verdict, h.alpha, h.beta)
        if h.alpha is not None and h.beta is not None
        else None,
        **votes.model_dump(
            include={
                "supporting_papers",
                "refuting_papers",
                "papers_judged",
                "papers_below_threshold",
                "strongest_support_edge",
                "strongest_refute_edge",
            }
        ),
        papers_for=named(votes.supporting_paper_ids),
        papers_against=named(votes.refuting_paper_ids),
        recomputed=h.recomputed,
        question_reading=question_reading,
        not_addressed=not_addressed,
    )


def shown_title(title: str | None, abstract: str | None) -> str | None:
    """A paper's title as the answer names it: an untitled paper (BEIR-style corpora leave titles
    empty) by the opening words of its abstract."""
    title = (title if isinstance(title, str) else "").strip()
    if title:
        return title
    return f"Untitled: {abstract[:80]}…" if isinstance(abstract, str) and abstract else None


def answer_text(answer: AnswerView, task_id: str, markdown: bool = False) -> list[str]:
    """The answer as lines of text, in every view that prints it: its line first, then why no
    passage addresses the question, the hypothesis and how it was read, where its passages are
    listed, and the papers for and against — or an open question's claims, by topic.
    ``markdown`` writes the listed items as list items."""
    item = "- " if markdown else "  "
    lines = [answer.line, *([answer.not_addressed] if answer.not_addressed else [])]
    if answer.hypothesis:
        note = reading_note(answer.question_reading)
        lines.append(
            f"Hypothesis ({note}): {answer.hypothesis}" if note else f"Hypothesis: {answer.hypothesis}"
        )
        lines.append(
            f"{item}claim {answer.hypothesis_claim_id}: `lyra evidence {task_id}` lists its passages"
        )
    for side, papers in (("for", answer.papers_for), ("against", answer.papers_against)):
        lines += [f"{item}{side}: {p.title or UNTITLED}" + (f" ({p.year})" if p.year else "") for p in papers]
    topics = list(dict.fromkeys(c.topic for c in answer.claims))
    headed = len(topics) > 1 or any(topics)
    for topic in topics:
        if headed:
            lines.append(f"{item}{topic or 'other claims'}:")
        lines += [f"{'  ' * headed}{item}{c.text} ({c.verdict})" for c in answer.claims if c.topic == topic]
    return lines
