"""The design of the study behind a paper, read from its title and abstract by cue phrases.

Each cue names a design and how plainly it says so (3: the design's own name, "case-control study";
2: what the design does, "randomly assigned", "searched MEDLINE", "followed for 10 years"; 1: a
hint, "questionnaire", "prevalence"). A cue counts by its strength times the weight of where it
stands (zones.py: title 3, methods and the authors' own sentences 2, elsewhere 1, background 0), so
"randomized trials have compared …" in a registry study's background decides nothing. The design
with the highest count wins, except that trial words in the title, methods or the authors' own
sentences ("double-blind", "randomly assigned") outweigh follow-up words ("prospective", "followed
for 5 years"), which a trial has too, unless the paper names itself a cohort; ties go to the design higher in
PRECEDENCE, so a meta-analysis of
randomized trials is a meta-analysis. Animals or cells win over a trial's words when the
randomized subjects are rats, not people, and a basic-science abstract with no study design
words and no people in it is read as laboratory work — of human cells or tissue where it names them
and no animal ("human monocytes … ex vivo"). A cohort drawn from a registry ("register based cohort
study", "analysis of a cancer registry database") is a registry study; a trial's own registration
("Trial registration: ISRCTN…") is no registry. A cluster randomised trial is an RCT whose cue keeps
the word "cluster".
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from lyra_core.study_design.zones import Sentence, Zone, zoned_sentences

Design = Literal[
    "meta_analysis",
    "rct",
    "cohort",
    "registry",
    "case_control",
    "cross_sectional",
    "animal_cell",
    "human_cells",
    "review",
    "other",
]
DESIGNS: tuple[Design, ...] = (
    "meta_analysis",
    "rct",
    "cohort",
    "registry",
    "case_control",
    "cross_sectional",
    "animal_cell",
    "human_cells",
    "review",
    "other",
)
# How much a design weighs as evidence: a synthesis of trials above one trial above observation …
RANK: dict[str, int] = {
    "meta_analysis": 6,
    "rct": 5,
    "cohort": 4,
    "registry": 4,
    "case_control": 4,
    "cross_sectional": 3,
    "animal_cell": 2,
    "human_cells": 2,
    "review": 1,
    "other": 0,
}
LABEL: dict[str, str] = {
    "meta_analysis": "meta-analysis",
    "rct": "RCT",
    "cohort": "cohort study",
    "registry": "registry study",
    "case_control": "case-control study",
    "cross_sectional": "cross-sectional study",
    "animal_cell": "animal/cell study",
    "human_cells": "human cell/tissue study",
    "review": "review",
    "other": "design not stated",
}
# Which design a tie goes to: the more specific reading first.
PRECEDENCE: tuple[Design, ...] = (
    "meta_analysis",
    "review",
    "rct",
    "case_control",
    "cross_sectional",
    "registry",
    "cohort",
    "animal_cell",
    "other",
)
# The design certainty grades each finer design as (GRADE): a registry study is an observational cohort,
# human cells or tissue studied outside the body are laboratory work.
GRADED_AS: dict[str, Design] = {"registry": "cohort", "human_cells": "animal_cell"}

_R = r"randomi[sz]"
# Animals and what is done to them; laboratory methods (in vitro, ex vivo …) say nothing of the species.
_ORGANISMS = (
    r"mice|mouse|murine|rats?|rodents?|hamsters?|rabbits?|pigs?|piglets?|swine|porcine|dogs?|"
    r"canine|sheep|ovine|monkeys?|macaques?|primates?|zebrafish|drosophila|flies|yeast|"
    r"saccharomyces|c\.\s*elegans|caenorhabditis|arabidopsis|xenopus|knock-?out|knock-?in|"
    r"transgenic|xenografts?|Wistar|Sprague|C57BL|animals?|animal\s+models?"
)
_LAB_METHODS = r"in\s+vitro|ex\s+vivo|cell\s+lines?|cultured|co-?culture[sd]?|organoids?"
# Each design's cues: the design, the cue's strength, the pattern (compiled into CUES).
_CUE_PATTERNS: list[tuple[Design, int, str]] = [
    (
        "meta_analysis",
        3,
        r"\bmeta-?analy[sz](?:is|es|ed)\b|\bsystematic(?:al)?\s+(?:literature\s+)?review|"
        r"\bpooled\s+analys[ie]s\b|\bumbrella\s+review|\bCochrane\s+review",
    ),
    (
        "meta_analysis",
        2,
        r"\b(?:searched|search\s+of|searches\s+of|search\s+(?:in|through))\b[^.]{0,80}\b(?:MEDLINE|"
        r"PubMed|EMBASE|Cochrane|CINAHL|Web\s+of\s+Science|Scopus|PsycINFO|databases?)\b|"
        r"\bPRISMA\b|\b(?:eligible|included)\s+(?:studies|trials|articles)\b|"
        r"\b(?:random|fixed)[- ]effects?\s+(?:model|meta)",
    ),
    (
        "rct",
        3,
        rf"\b(?:cluster[- ])?{_R}ed\b[^.]{{0,40}}\b(?:controlled\s+|clinical\s+|comparative\s+|double-?blind\s+|"
        rf"placebo-controlled\s+|parallel-group\s+|crossover\s+|cross-over\s+)*(?:trial|study|comparison)\b|"
        rf"\b{_R}ed\s+controlled\b|\bRCT\b",
    ),
    (
        "rct",
        2,
        rf"\b(?:were|was|been|being)\s+(?:\w+\s+)?{_R}ed\b|\b{_R}ed\s+(?:to|into|in\s+a)\b|"
        r"\brandomly\s+(?:assigned|allocated|divided)\b|\b{_R}ation\b(?!\s+(?:study|approach|analys))|"
        r"\bplacebo[- ]controlled\b|\bdouble[- ]blind(?:ed)?\b|\bsham[- ]controlled\b",
    ),
    ("rct", 1, r"\btrial\b"),
    ("case_control", 3, r"\bcase[-‐–\s]control\b|\bcase[-–]referent\b"),
    ("case_control", 2, r"\b(?:matched|healthy)\s+controls\b|\bcases\s+and\s+(?:[\w,]+\s+)?controls\b"),
    (
        "case_control",
        1,
        r"\b(?:healthy|matched|normal)\s+(?:control\s+)?(?:subjects|individuals|controls)"
        r"\b|\bcontrol\s+(?:group|subjects)\b",
    ),
    (
        "cohort",
        3,
        r"\bcohort\s+(?:study|studies|analysis|design)\b|\b(?:prospective|retrospective|longitudinal|"
        r"population-based|birth|inception)\s+(?:\w+\s+)?cohort\b|\bcase-cohort\b|\blongitudinal\s+study\b",
    ),
    (
        "cohort",
        2,
        r"\bprospective(?:ly)?\b|\bretrospective(?:ly)?\b|\bfollowed(?:\s+up)?\s+(?:for|until|over|through)\b|"
        r"\bfollow-?up\s+(?:of|was|period)\b|\bcohort\b|\bmedical\s+records\b|"
        r"\bchart\s+review\b|\bincident\b|\bincidence\s+of\b|\bperson-years\b|\bconsecutive\b|"
        r"\b(?:records|charts)\b|\b(?:we|were)\s+reviewed\b|\bdatabase\b",
    ),
    (
        "cohort",
        1,
        r"\b(?:from|between)\s+(?:\w+\s+)?(?:19|20)\d\d\s+(?:to|and|until|through)\b|\bunderwent\b",
    ),
    (
        "registry",
        3,
        r"\b(?:registry|register)[- ]based\b|\bregistry\s+(?:study|studies|data|database|analysis)\b",
    ),
    # A registry as a source, which a trial may use too ("matched with the National Cancer Registry").
    (
        "registry",
        2,
        r"\b(?:national|nationwide|population|cancer|disease|patient|hospital|birth|death|prescription|"
        r"quality)\s+(?:\w+\s+)?(?:registry|register|registries|registers)\b|\bregistr(?:y|ies)\b",
    ),
    ("cross_sectional", 3, r"\bcross[- ]sectional(?:ly)?\b"),
    ("cross_sectional", 2, r"\bNHANES\b"),
    ("cross_sectional", 1, r"\b(?:survey|questionnaire|interview)s?\b|\bprevalence\b"),
    (
        "animal_cell",
        2,
        rf"\b(?:{_ORGANISMS}|{_LAB_METHODS})\b",
    ),
    (
        "review",
        3,
        r"\b(?:in\s+this|this|the\s+present|our)\s+(?:\w+\s+)?review\b|\b(?:we|I)\s+(?:\w+\s+)?(?:review|"
        r"summari[sz]e|discuss|overview)\b|\breview\s+article\b|^(?:[^.]*:\s*)?(?:an?\s+)?(?:\w+\s+)?"
        r"(?:review|overview)\b|\breview\.?$",
    ),
]
CUES: list[tuple[Design, int, re.Pattern[str]]] = [
    (d, s, re.compile(p, re.IGNORECASE)) for d, s, p in _CUE_PATTERNS
]
# The subjects of the study are people: a count of them or words that name them.
_PEOPLE = re.compile(
    r"\b(?:patients?|participants?|volunteers?|women|men|children|adults|adolescents|infants|"
    r"subjects|individuals|persons|people|respondents|survivors|physicians|nurses|students|"
    r"residents|veterans|pregnan(?:t|cies)|smokers|cases)\b",
    re.IGNORECASE,
)
# Laboratory work: what a basic-science abstract does, with no design words of a clinical study.
_LAB = re.compile(
    r"\b(?:we\s+(?:show|report|identify|demonstrate|found|find)|here\s+we|knock(?:ed)?-?down|"
    r"overexpress(?:ion|ed|ing)|mutants?|mutations?|phosphorylat\w+|protein|proteins|gene|genes|"
    r"receptors?|transcription|kinase|enzyme|binding|signaling|signalling|in\s+vivo|assays?|"
    r"cells|molecular|mRNA|RNA|DNA|genome|chromatin|peptide|pathway|microscopy|structure)\b",
    re.IGNORECASE,
)
_ANIMALS = re.compile(rf"\b(?:{_ORGANISMS})\b", re.IGNORECASE)
# Cells or tissue taken from people: "human monocytes", "adipose tissue from 38 obese individuals", "biopsies".
_HUMAN_MATERIAL = re.compile(
    r"\bhuman\b|\bfrom\s+(?:\w+\s+){0,4}(?:patients|donors|volunteers|individuals|subjects|women|men|"
    r"children|adults)\b|\bpatients['’]|\bdonors?\b|\bbiops(?:y|ies|ied)\b",
    re.IGNORECASE,
)
# A trial's own registration ("Trial registration: ISRCTN…") names no registry study.
_TRIAL_REGISTRATION = re.compile(
    r"\btrials?\s+regist|\bregist\w*\s+(?:number|identifier|no\b)|clinicaltrials|\bISRCTN|\bNCT\d|\bPROSPERO\b",
    re.IGNORECASE,
)
_NOT_RCT = re.compile(
    r"\bnon-?randomi[sz]ed\b|\bquasi-?(?:experimental|randomi[sz]ed)\b|\bmendelian\s+randomi[sz]ation\b|\brandom(?:ly)?\s+(?:selected|drawn|sampled|sample|"
    r"digit)\b|\brandom[- ]effects?\b",
    re.IGNORECASE,
)


class StudyDesign(BaseModel):
    """A paper's design as its text states it, the words that decided it, and its rank as evidence."""

    design: Design
    cue: str | None = None  # the words that decided it, as written
    where: Zone | Literal["laboratory words"] | None = None
    rank: int

    @property
    def label(self) -> str:
        return LABEL[self.design]

    def reason(self) -> str:
        """One line for a reason text: 'RCT ("randomly assigned" in the methods)'."""
        if self.where == "laboratory words":
            return f"{self.label} (laboratory work, no study design stated)"
        if self.cue is None:
            return self.label
        place = {
            "title": "the title",
            "methods": "the methods",
            "own": "the authors' description",
            "plain": "the abstract",
        }
        return f'{self.label} ("{self.cue}" in {place.get(self.where or "", "the abstract")})'


class _Found(BaseModel):
    design: Design
    score: int
    strength: int
    cue: str
    where: Zone


def _cues(sentences: list[Sentence]) -> list[_Found]:
    found = []
    for sentence in sentences:
        if sentence.weight == 0:
            continue
        not_trial = _NOT_RCT.sub(" ", sentence.text)  # "Mendelian randomization" is no trial
        for design, strength, pattern in CUES:
            if design == "review" and sentence.zone not in ("title", "own", "plain"):
                continue
            if design == "registry" and _TRIAL_REGISTRATION.search(sentence.text):
                continue
            match = pattern.search(not_trial if design == "rct" else sentence.text)
            if match:
                found.append(
                    _Found(
                        design=design,
                        score=strength * sentence.weight,
                        strength=strength,
                        cue=match.group(0).strip(" :."),
                        where=sentence.zone,
                    )
                )
    return found


def _best(found: list[_Found], design: Design) -> _Found | None:
    mine = [f for f in found if f.design == design]
    return max(mine, key=lambda f: (f.score, f.strength)) if mine else None  # the plainer cue on a tie


def _trial_stated(found: list[_Found]) -> _Found | None:
    """The plainest trial cue in the title, the methods or the authors' own words ("randomly assigned")."""
    mine = [
        f for f in found if f.design == "rct" and f.strength >= 2 and f.where in ("title", "methods", "own")
    ]
    return max(mine, key=lambda f: (f.score, f.strength)) if mine else None


def _decide(found: list[_Found], sentences: list[Sentence]) -> tuple[Design, _Found | None]:
    """The design the cues point to; the docstring of this module gives the order of the rules."""
    animal = _best(found, "animal_cell")
    people = any(_PEOPLE.search(s.text) for s in sentences if s.weight >= 1)
    bests = [b for d in PRECEDENCE if d != "animal_cell" and (b := _best(found, d)) is not None]
    if bests:
        top = max(b.score for b in bests)
        best = next(b for b in bests if b.score == top)  # bests are in PRECEDENCE order
        # A trial followed up for years is still a trial: trial words in the title or methods outweigh
        # follow-up words ("prospective", "followed for 5 years") that are not a cohort's own name.
        trial = _trial_stated(found)
        if best.design in ("cohort", "registry") and best.strength < 3 and trial is not None:
            best = trial
        # A cohort drawn from a registry ("nationwide register based cohort study") is named by its source.
        registry = _best(found, "registry")
        if best.design == "cohort" and registry and registry.strength == 3 and registry.where != "plain":
            best = registry
        # Rats randomized into three groups are an animal experiment, not a trial in people.
        if animal and best.design not in ("meta_analysis", "review") and not people:
            return "animal_cell", animal
        if best.score >= 2 or not animal:
            return best.design, best
    if animal:
        return "animal_cell", animal
    if not people and sum(len(_LAB.findall(s.text)) for s in sentences) >= 3:
        return "animal_cell", None
    return "other", None


def _of_people(design: Design, sentences: list[Sentence]) -> Design:
    """Laboratory work on human cells or tissue, with no animal named, is no animal study."""
    if design != "animal_cell":
        return design
    stated = [s.text for s in sentences if s.weight >= 1]
    if any(_ANIMALS.search(t) for t in stated) or not any(_HUMAN_MATERIAL.search(t) for t in stated):
        return design
    return "human_cells"


def read_design(title: str, abstract: str, passage: str = "") -> StudyDesign:
    """The study design a paper's title and abstract (and, optionally, a passage of it) state."""
    sentences = zoned_sentences(title, abstract, passage)
    design, found = _decide(_cues(sentences), sentences)
    design = _of_people(design, sentences)
    if found is None:
        where: Literal["laboratory words"] | None = (
            "laboratory words" if design in ("animal_cell", "human_cells") else None
        )
        return StudyDesign(design=design, rank=RANK[design], where=where)
    return StudyDesign(design=design, cue=found.cue, where=found.where, rank=RANK[design])
