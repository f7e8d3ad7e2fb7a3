"""What a reader should know before relying on *this* answer: its own weaknesses, in plain words.

A report that says the same "how far to trust this" under every answer teaches its reader to skip
it. These lines are read from the answer's own votes: an answer resting on one paper, on
observational or laboratory studies only, on votes read by word overlap alone, or with its
best-ranked papers not counted says so, each in one sentence (docs/outputs.md#the-report).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from lyra_core.answer import AnswerView, strongest_paper_edges
from lyra_core.certainty import EXPLICIT_JUDGES
from lyra_core.direction.claim_frame import read_claim
from lyra_core.report.grade_cues import grade_caveats
from lyra_core.report.refs import UNTITLED
from lyra_core.result_passages import TOP_PAPERS
from lyra_core.scoring import NEUTRAL, REFUTES, SUPPORTS
from lyra_core.topicality import on_topic

OBSERVATIONAL = {"cohort", "registry", "case_control", "cross_sectional"}
LABORATORY = {"animal_cell", "human_cells"}


class UncountedPaper(BaseModel):
    """A best-ranked paper that cast no vote on the hypothesis, and why."""

    paper_id: str
    title: str
    reason: str
    ref: int | None = None  # its number in the report's references


def answer_votes(edges: Iterable[Mapping[str, Any]], min_vote: float) -> list[Mapping[str, Any]]:
    """Each paper's vote on the hypothesis, as :func:`lyra_core.answer.paper_votes` counts it: its
    strongest SUPPORTS or REFUTES edge, if at least ``min_vote``."""
    return [v for v in strongest_paper_edges(edges) if float(v["nli_confidence"]) >= min_vote]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def answer_caveats(
    answer: AnswerView,
    votes: list[Mapping[str, Any]],
    uncounted: list[UncountedPaper],
    edges: Iterable[Mapping[str, Any]] = (),
) -> list[str]:
    """The weaknesses of a yes/no answer, each one sentence; none for an open question. ``edges``: all
    the hypothesis's edges with their passages, where the GRADE cues of a voting paper are read too."""
    if answer.origin != "hypothesis":
        return []
    if not votes:
        return ["No paper voted for or against the hypothesis: there is no answer here, only papers to read."]
    out: list[str] = []
    papers = {v.get("paper") or v["page_id"] for v in votes}
    if len(papers) == 1:
        out.append("The answer rests on one paper: a single study, however clear, is not a settled finding.")
    designs = [v.get("study_design") for v in votes]
    if all(d in OBSERVATIONAL for d in designs):
        out.append(
            "Every paper that voted is an observational study: they show an association, not that the "
            "exposure causes the outcome."
        )
    elif all(d in LABORATORY for d in designs):
        out.append(
            "Every paper that voted is an animal or cell study: what holds there may not hold in people."
            if "human_cells" not in designs
            else "Every paper that voted is a laboratory study (human cells or tissue outside the body, or "
            "animals): what holds in the laboratory may not hold in a patient."
        )
    elif not any(d in ("rct", "meta_analysis") for d in designs) and any(d in OBSERVATIONAL for d in designs):
        out.append("No randomised trial or meta-analysis voted.")
    overlap = [v for v in votes if v.get("judged_by") not in EXPLICIT_JUDGES and not v.get("human_reviewed")]
    if overlap:
        share = (
            "Every vote was" if len(overlap) == len(votes) else f"{len(overlap)} of {len(votes)} votes were"
        )
        out.append(
            f"{share} read by the cross-encoder, which weighs the words a passage shares with the "
            "hypothesis, not a finding's direction: read those passages yourself."
        )
    sides = {v["relation"] for v in votes}
    if sides == {SUPPORTS, REFUTES}:
        against = sum(v["relation"] == REFUTES for v in votes)
        out.append(f"The papers disagree: {_plural(len(votes) - against, 'paper')} for, {against} against.")
    side = SUPPORTS if (answer.confidence if answer.confidence is not None else 0.5) >= 0.5 else REFUTES
    question = answer.hypothesis or ""
    mine = [v for v in votes if v["relation"] == side]
    out += grade_caveats(question, read_claim(question).outcome, mine, edges)
    if answer.certainty in ("low", "very_low") and answer.verdict not in ("unverified", "contested"):
        out.append(
            f"Certainty is {answer.certainty.replace('_', ' ')}"
            + (f" ({answer.certainty_reasons})." if answer.certainty_reasons else ".")
        )
    if uncounted:
        lead = "One of" if len(uncounted) == 1 else f"{len(uncounted)} of"
        out.append(f"{lead} the {TOP_PAPERS} best-ranked papers cast no vote; the report says why for each.")
    return out


def uncounted_papers(
    ranked: list[tuple[str, str]], edges: Iterable[Mapping[str, Any]], voters: set[str]
) -> list[UncountedPaper]:
    """The best-ranked papers (``ranked``: paper id and title, best first) that cast no vote on the
    hypothesis, each with why: its strongest edge's reason, or that no passage of it was judged."""
    by_paper: dict[str, list[Mapping[str, Any]]] = {}
    for edge in edges:
        by_paper.setdefault(edge.get("paper") or edge["page_id"], []).append(edge)
    out = []
    for paper_id, title in ranked[:TOP_PAPERS]:
        if paper_id in voters:
            continue
        mine = by_paper.get(paper_id, [])
        if not mine:
            reason = "none of its passages was judged against the hypothesis"
        else:
            strongest = max(
                mine,
                key=lambda e: (
                    e["relation"] != NEUTRAL and on_topic(e),
                    e["relation"] != NEUTRAL,
                    float(e["nli_confidence"]),
                ),
            )
            why = " ".join(str(strongest.get("reason") or "").split())
            if strongest["relation"] == NEUTRAL:
                reason = (
                    f"its passages were judged neutral: {why}" if why else "its passages were judged neutral"
                )
            elif not on_topic(strongest):
                reason = f"no passage of it states a finding on the hypothesis's exposure and outcome: {why}"
            else:
                reason = (
                    f"its strongest passage ({strongest['relation'].lower()}, "
                    f"{float(strongest['nli_confidence']):.2f}) is under the vote threshold"
                )
        out.append(
            UncountedPaper(paper_id=paper_id, title=" ".join(title.split()) or UNTITLED, reason=reason)
        )
    return out
