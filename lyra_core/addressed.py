"""Whether a task's papers address its yes/no question at all.

A question such as "Is obesity associated with increased risk of type 2 diabetes?" reads as a
claim with an exposure (obesity) and an outcome (risk of type 2 diabetes). When no passage that
voted on it (or, with no vote, no passage judged against it) speaks of both — by the relevance
gate of the direction judge, ``lyra_core.direction.relevance`` — the papers answer another
question, and the answer says so in one line, naming the papers that come closest, rather than
letting its votes pass for an answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from lyra_core.direction.claim_frame import read_claim
from lyra_core.direction.relevance import Relevance, relevance

CLOSEST_SHOWN = 3


class TaskPassage(BaseModel):
    """One fragment of a task's paper, and what the hypothesis's judgement made of it."""

    paper_id: str  # the paper (or, for a web page that is no paper, the page)
    text: str
    paper_text: str = ""  # the paper's title and text, where a results sentence's exposure is named
    judged: bool = False  # judged against the hypothesis (it has an edge)
    voted: bool = False  # that edge SUPPORTS or REFUTES the hypothesis


def _phrase(part: str) -> str:
    """A claim part as it reads mid-sentence: "Obesity" → "obesity"; an acronym stays."""
    part = " ".join(part.split())
    return part[:1].lower() + part[1:] if part[:2] != part[:2].upper() else part


def _nearness(about: Relevance) -> tuple[int, int]:
    return (
        int(about.exposure_matched) + int(about.outcome_matched),
        len(about.exposure_terms) + len(about.outcome_terms),
    )


def not_addressed_line(
    hypothesis: str | None, passages: Sequence[TaskPassage], titles: Mapping[str, str]
) -> str | None:
    """The line saying that no passage addresses the question's exposure and outcome together,
    with the ``CLOSEST_SHOWN`` papers that come closest; None when a passage that voted (or, with
    no vote, one that was judged) is about both, or when the hypothesis has no exposure and
    outcome to look for. ``titles`` maps every paper of the task to its title, best search rank
    first (ties in nearness keep that order)."""
    frame = read_claim(hypothesis) if hypothesis else None
    if frame is None or not frame.exposure.strip() or not frame.outcome.strip():
        return None
    about = [
        relevance(frame.exposure, frame.outcome, p.text, p.paper_text, treated=frame.treats) for p in passages
    ]
    voted = [a for p, a in zip(passages, about, strict=True) if p.voted]
    considered = voted or [a for p, a in zip(passages, about, strict=True) if p.judged]
    if any(a.about_both for a in considered):
        return None
    both = f"{_phrase(frame.exposure)} and {_phrase(frame.outcome)}"
    elsewhere = sum(a.about_both for a in about)
    if elsewhere:
        who = "that voted" if voted else "judged against the question"
        head = (
            f"No passage {who} addresses {both} together ({elsewhere} other passage"
            f"{'s' * (elsewhere != 1)} of the {len(titles)} papers name{'s' * (elsewhere == 1)} both)"
        )
    else:
        head = f"No passage in the {len(titles)} papers addresses {both} together"
    return _with_closest(head, passages, about, titles)


def no_claim_line(
    exposure: str, outcome: str, passages: Sequence[TaskPassage], titles: Mapping[str, str]
) -> str:
    """An open question's line when none of its adopted claims addresses its exposure and outcome
    together: how many passages name both, and the papers that come closest."""
    about = [relevance(exposure, outcome, p.text, p.paper_text) for p in passages]
    both = f"{_phrase(exposure)} and {_phrase(outcome)}"
    named = sum(a.about_both for a in about)
    head = f"No claim in the {len(titles)} papers addresses {both} together" + (
        f" ({named} passage{'s' * (named != 1)} name{'s' * (named == 1)} both)" if named else ""
    )
    return _with_closest(head, passages, about, titles)


def _with_closest(
    head: str, passages: Sequence[TaskPassage], about: Sequence[Relevance], titles: Mapping[str, str]
) -> str:
    nearest: dict[str, tuple[int, int]] = {}
    for passage, a in zip(passages, about, strict=True):
        nearest[passage.paper_id] = max(nearest.get(passage.paper_id, (0, 0)), _nearness(a))
    order = {paper: rank for rank, paper in enumerate(titles)}
    closest = sorted(titles, key=lambda p: (tuple(-x for x in nearest.get(p, (0, 0))), order[p]))[
        :CLOSEST_SHOWN
    ]
    if not closest:
        return f"{head}; the task has no papers"
    return f"{head}; the closest are " + "; ".join(f"“{titles[p].strip() or p}”" for p in closest)
