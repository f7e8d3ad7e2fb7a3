"""Where in a paper's text a sentence stands, and how much a design cue there says about the paper.

A design cue counts for the paper's own design only where the paper describes itself: its title,
its methods (DESIGN, METHODS, PARTICIPANTS, DATA SOURCES …), or a sentence in which the authors say
what they did ("we conducted a case-control study", "in this cohort"). The same words in the
background ("randomized trials have compared …", "a meta-analysis published in 2007 showed …")
describe other work and count for nothing.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from lyra_core.fragments import split_sentences

Zone = Literal["title", "methods", "own", "plain", "background"]
# How much a cue in each zone counts; a background cue describes someone else's study.
ZONE_WEIGHT: dict[str, int] = {"title": 3, "methods": 2, "own": 2, "plain": 1, "background": 0}

_BACKGROUND_HEADS = {"BACKGROUND", "INTRODUCTION", "CONTEXT", "RATIONALE", "IMPORTANCE"}
_METHOD_HEADS = {
    "METHOD",
    "METHODS",
    "DESIGN",
    "SETTING",
    "SETTINGS",
    "PARTICIPANTS",
    "PATIENTS",
    "SUBJECTS",
    "MATERIALS",
    "MATERIAL",
    "DATA",
    "SOURCES",
    "SELECTION",
    "SEARCH",
    "STRATEGY",
    "CRITERIA",
    "INTERVENTION",
    "INTERVENTIONS",
    "MEASUREMENTS",
    "EXPOSURES",
    "EXTRACTION",
    "SYNTHESIS",
    "COLLECTION",
    "POPULATION",
    "SAMPLE",
    "SAMPLES",
    "ELIGIBILITY",
}
_OTHER_HEADS = {
    "RESULTS",
    "RESULT",
    "FINDINGS",
    "CONCLUSION",
    "CONCLUSIONS",
    "INTERPRETATION",
    "OBJECTIVE",
    "OBJECTIVES",
    "AIM",
    "AIMS",
    "PURPOSE",
    "PURPOSES",
    "GOAL",
    "GOALS",
    "LIMITATIONS",
    "MAIN",
    "OUTCOME",
    "OUTCOMES",
    "MEASURE",
    "MEASURES",
    "QUESTION",
    "HYPOTHESIS",
    "SIGNIFICANCE",
    "STUDY",
    "AND",
    "OF",
    "ANALYSIS",
    "DISCUSSION",
    "SUMMARY",
    "ABSTRACT",
    "TRIAL",
    "REGISTRATION",
    "RELEVANCE",
    "KEY",
    "APPRAISAL",
    "REVIEW",
    *_BACKGROUND_HEADS,
    *_METHOD_HEADS,
}
_HEAD_WORD = r"(?:{})(?:\(S\))?".format("|".join(sorted(_OTHER_HEADS, key=len, reverse=True)))
# "METHODS AND RESULTS", "DESIGN, SETTING, AND PARTICIPANTS", "ABSTRACT.METHODS:", "Methods:".
_HEADING = re.compile(
    rf"(?:^|(?<=[.!?:)\]])\s+|(?<=\s))(?:ABSTRACT\.)?(?P<head>{_HEAD_WORD}(?:[ "
    rf",/&]+{_HEAD_WORD})*)(?:\s*:|\s+(?=[A-Z(]))"
    r"|(?:^|(?<=[.!?]\s))(?P<mixed>(?:Background|Introduction|Context|Objectives?|Aims?|Purpose|Methods?|Design|"
    r"Setting|Participants|Patients|Subjects|Materials and methods|Results|Findings|Conclusions?|"
    r"Interpretation)(?:/[A-Z][a-z]+)?)\s*:"
)
# The authors describing their own study: a design cue here is theirs.
OWN = re.compile(
    r"\b(?:we|our|us|here|herein|this|the\s+present|the\s+current)\b\s*(?:\w+\s+){0,3}?"
    r"(?:study|studies|trial|analysis|review|report|cohort|paper|investigation|survey|meta-analysis|"
    r"conducted|performed|carried|undertook|designed|did|used|enrolled|recruited|randomi[sz]ed|"
    r"assigned|followed|analy[sz]ed|searched|identified|review|reviewed|studied|examined|compared|"
    r"included|assessed|collected|report|describe|show|investigated)\b"
    r"|^\s*(?:this|the\s+present)\s+(?:was|is)\b|\b(?:we|our)\b",
    re.IGNORECASE,
)
# Someone else's work: an earlier study, what trials "have shown", a review "published in 2007".
# "Women with previous gestational diabetes were randomized": an earlier illness is no earlier study.
OTHERS = re.compile(
    r"\b(?:(?:previous|prior|earlier)\s+(?:\w+\s+)?(?:stud(?:y|ies)|work|reports?|research|"
    r"trials?|findings|data|analys[ie]s|reviews?|literature|evidence|observations?|experiments?)|"
    r"previously|published|have\s+(?:been\s+)?(?:shown|demonstrated|"
    r"reported|suggested|found|compared|established|linked|indicated)|(?:several|many|"
    r"numerous|few|most|some|existing|other)\s+(?:\w+\s+)?(?:stud(?:y|ies)|trials|"
    r"meta-analyses|reviews|reports|investigations))\b",
    re.IGNORECASE,
)


class Sentence(BaseModel):
    text: str
    zone: Zone

    @property
    def weight(self) -> int:
        return ZONE_WEIGHT[self.zone]


def _section_zone(heading: str) -> Zone:
    words = set(re.findall(r"[A-Z]+", heading.upper()))
    if words & _METHOD_HEADS:  # "METHODS AND RESULTS" describes the methods too
        return "methods"
    if words & _BACKGROUND_HEADS:
        return "background"
    return "plain"


def sections(abstract: str) -> list[tuple[Zone | None, str]]:
    """The abstract cut at its section headings, each part with the zone its heading names (None
    before the first heading or in an abstract without headings)."""
    text = " ".join((abstract or "").split())
    parts: list[tuple[Zone | None, str]] = []
    zone: Zone | None = None
    start = 0
    for match in _HEADING.finditer(text):
        head = match.group("head") or match.group("mixed")
        if match.group("head") and len(head) < 4:
            continue  # "AND" or "OF" alone is not a heading
        if text[start : match.start()].strip():
            parts.append((zone, text[start : match.start()].strip()))
        zone = _section_zone(head)
        start = match.end()
    if text[start:].strip():
        parts.append((zone, text[start:].strip()))
    return parts


def _sentence_zone(sentence: str, section: Zone | None) -> Zone:
    """A sentence's zone: its section's, unless the sentence itself says whose study it describes."""
    own = bool(OWN.search(sentence))
    others = bool(OTHERS.search(sentence))
    if own and not others:
        return "own" if section != "methods" else "methods"
    if others:
        return "background"
    return section or "plain"


def zoned_sentences(title: str, abstract: str, passage: str = "") -> list[Sentence]:
    """The title, the abstract's sentences and the passage's, each with its zone."""
    out = [Sentence(text=title.strip(), zone="title")] if title and title.strip() else []
    for section, text in sections(abstract):
        out.extend(Sentence(text=s, zone=_sentence_zone(s, section)) for s in split_sentences(text))
    out.extend(Sentence(text=s, zone=_sentence_zone(s, None)) for s in split_sentences(passage))
    return out
