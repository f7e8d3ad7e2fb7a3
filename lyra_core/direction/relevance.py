"""Whether a passage is about a claim's exposure and outcome: a passage may vote on a claim only
if it speaks of the claim's outcome and its paper speaks of the claim's exposure (a hip-fracture
study says nothing of cardiovascular mortality, whatever words it shares with the claim).

Matching is by the concepts a phrase names (``lyra_core.direction.terms``: stemmed index terms, the
words that name one thing folded together, "smokers" read as smoking), after the short forms an
abstract defines are spelled out ("graduated compression stockings (GCS)", "the primary outcome
was …": ``lyra_core.direction.abbreviations``). The learned reader's ``unrelated`` probability is
the second opinion (docs/direction.md).
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import BaseModel

from lyra_core.direction.abbreviations import phrase_spelled_out, spelled_out
from lyra_core.direction.covariates import without_covariates
from lyra_core.direction.other_kinds import another_kind, another_site, named_as_other
from lyra_core.direction.population import MEASURES, TOKEN, named_runs, only_as_population
from lyra_core.direction.terms import concepts as _concepts
from lyra_core.direction.terms import specific as _specific
from lyra_core.direction.terms import word_concepts as _word_concepts

MATCH_SHARE = 0.34  # chosen by bench/relevance_gate.py on its tuning side


class Relevance(BaseModel):
    """Which of the claim's parts a passage (and its paper) is about."""

    exposure_matched: bool
    outcome_matched: bool
    exposure_terms: list[str] = []
    outcome_terms: list[str] = []
    side_by_side: bool = False  # the passage names the two only side by side ("obesity and diabetes fell")
    outcome_as_population: bool = False  # the outcome named only as who was studied ("treatment of cancer")

    @property
    def about_both(self) -> bool:
        return self.exposure_matched and self.outcome_matched and not self.side_by_side


def _enough(hits: list[str], wanted: set[str], share: float) -> bool:
    """At least one of the phrase's specific terms, and ``share`` of them."""
    return bool(hits) and len(hits) >= share * len(wanted)


_ACRONYM = re.compile(r"\b([A-Z][A-Za-z]?[A-Z]{1,5})s?\b")
_LINKING = {"of", "and", "the", "in", "for", "with", "to", "on", "a", "an"}
_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")


# a task asks it of each paper's text once per fragment of the paper, and again in each asset that
# checks relevance: the runs of a whole abstract are kept rather than counted again each time
@lru_cache(maxsize=128)
def _initials(text: str) -> frozenset[str]:
    """The initials of every run of two or more words ("cognitive behavioural therapy" → CBT, BT…);
    a hyphenated word gives one letter per part ("non-steroidal anti-inflammatory drugs" → NSAID)."""
    letters: list[list[str]] = []
    for word in _WORD.findall(text):
        if word.lower() in _LINKING:
            continue
        letters.append([part[0].upper() for part in word.split("-") if part])
    runs = set()
    for start in range(len(letters)):
        for end in range(start + 2, min(len(letters), start + 6) + 1):
            runs.add("".join("".join(x) for x in letters[start:end]))
            runs.add("".join(x[0] for x in letters[start:end]))
    return frozenset(runs)


def names_by_acronym(phrase: str, text: str) -> bool:
    """Whether ``text`` names ``phrase`` by its acronym, or ``phrase`` is an acronym ``text`` spells
    out. Only acronyms of three letters or more are matched by initials: any two words of an
    abstract start with "P" and "D"; a two-letter one ("PD-1") counts where the abstract defines it
    (:func:`lyra_core.direction.abbreviations.spelled_out`)."""
    named = {a.upper() for a in _ACRONYM.findall(text) if len(a.rstrip("s")) >= 3}
    if named and named & _initials(phrase):
        return True
    # a phrase with no acronym of its own needs no initials of the text (the costly side: a whole abstract)
    acronyms = {a.upper() for a in _ACRONYM.findall(phrase) if len(a.rstrip("s")) >= 3}
    return bool(acronyms) and bool(acronyms & _initials(text))


def _mentions(wanted: set[str], text: str) -> list[tuple[int, int]]:
    """Character spans of ``text`` that name one of the concepts ``wanted`` (runs of words, as
    ``lyra_core.direction.population.named_runs`` finds them)."""
    matches = list(TOKEN.finditer(text))
    words = [m.group() for m in matches]
    return [
        (matches[b].start(), matches[e - 1].end())
        for b, e in named_runs([_word_concepts(w) for w in words], words, wanted)
    ]


# Words that relate two things listed side by side: "the association between A and B", "A and B were
# strongly associated", "A and B share causes"
_RELATED_BEFORE = re.compile(r"\b(between|of both|both)\s*$", re.IGNORECASE)
_RELATED_AFTER = re.compile(
    r"^\s*(\w+\s+){0,3}?(associat\w*|correlat\w*|link\w*|relat\w*|co-?occur\w*|"
    r"cluster\w*|share\w*|interact\w*)\b",
    re.IGNORECASE,
)
_AND_OR = r"(and|or|and/or|&)"
_CONNECTOR = re.compile(rf"\s*,?\s*{_AND_OR}\s*", re.IGNORECASE)
# What may stand between two items of one list: a figure for each ("reduce A by 3.0% (95% CI …) and B
# by 1.6%") and the measure named ("obesity prevalence and diabetes incidence")
_ITEM_FILLER = re.compile(
    r"\([^()]*\)|\b(by|of|to|from)\b|[-+]?\d[\d.,]*\s*%?|\b("
    + "|".join(sorted(MEASURES))
    + r"|prevalence|prevalent|incident|levels?|cases)\b|[()]",
    re.IGNORECASE,
)


def _merged(spans: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    """Mentions joined by "and" / "or" / "/" as one: "overweight and obesity", "overweight/obesity"."""
    out: list[tuple[int, int]] = []
    for span in spans:
        if out and (
            _CONNECTOR.fullmatch(text[out[-1][1] : span[0]]) or text[out[-1][1] : span[0]].strip() == "/"
        ):
            out[-1] = (out[-1][0], span[1])
        else:
            out.append(span)
    return out


def _listed(span: tuple[int, int], outcomes: list[tuple[int, int]], text: str) -> bool:
    """Whether the mention ``span`` is an item of a list that holds an outcome mention."""
    for other in outcomes:
        first, second = sorted((span, other))
        gap, before, after = text[first[1] : second[0]], text[: first[0]], text[second[1] :]
        bare = _ITEM_FILLER.sub(" ", gap)
        if _RELATED_BEFORE.search(before) or _RELATED_AFTER.match(after):
            continue
        if _CONNECTOR.fullmatch(bare):  # "A and B", "A, or B", "A by 3% and B"
            return True
        if re.fullmatch(r"\s*,\s*", bare) and (
            re.match(rf"\s*,?\s*{_AND_OR}\b", after, re.IGNORECASE)
            or re.search(rf"(\b{_AND_OR}|,)\s*,?\s*$", before, re.IGNORECASE)
        ):
            return True  # "A, B and C", "C, A, B"
        if re.fullmatch(rf"\s*,\s*[A-Za-z0-9 -]{{1,40}}?,?\s*{_AND_OR}\s*", bare, re.IGNORECASE):
            return True  # one item between them: "A, C and B"
    return False


def side_by_side(exposure: str, outcome: str, text: str) -> bool:
    """Whether ``text`` names ``exposure`` only in a list beside ``outcome`` ("a tax would prevent
    obesity and type 2 diabetes", "adults with obesity, hypertension and diabetes"): two outcomes of
    something else, or who was studied, not the effect of one on the other. False where a sentence
    names the exposure apart from the outcome, or relates the two ("the association between obesity
    and diabetes"), or where either is not named (by a word the other does not share)."""
    from lyra_core.sentences import split_sentences

    own_exposure, own_outcome = _specific(exposure), _specific(outcome)
    listed_somewhere = False
    for sentence in split_sentences(text):
        exposures = _merged(_mentions(own_exposure - own_outcome, sentence), sentence)
        if not exposures:
            continue
        outcomes = _mentions(own_outcome - own_exposure, sentence)
        if not outcomes or not all(_listed(s, outcomes, sentence) for s in exposures):
            return False
        listed_somewhere = True
    return listed_somewhere


# A name that says exactly which thing is meant: letters and digits together ("PD-1", "IL-10", "CD4",
# "H5N1") or two or more capitals ("HIV", "CRP"). A passage that does not name it is about another
# thing of the same kind, however many of the phrase's other words it shares ("IL-10 inhibition by
# CRP in monocytes" is not about PD-1 triggering on monocytes).
_IDENTIFIER = re.compile(
    r"(?<![\w-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z][\w-]*\w|(?<![\w-])[A-Z]{2,}[a-z]?s?(?![\w-])"
)


def _identifiers(phrase: str) -> dict[str, str]:
    """The exact names in ``phrase``, as written, by their folded form (case and hyphens aside:
    "PD-1" is "pd1")."""
    return {_fold(m.group(0)): m.group(0) for m in _IDENTIFIER.finditer(phrase)}


def _fold(name: str) -> str:
    name = name.replace("-", "").lower()
    return name[:-1] if name.endswith("s") and not name[:-1].endswith("s") and len(name) > 3 else name


def _names_all(identifiers: dict[str, str], text: str) -> bool:
    """Whether ``text`` names every one of ``identifiers``: as a word (case and hyphens aside) or,
    for an acronym, spelled out ("non-steroidal anti-inflammatory drug" for NSAIDs)."""
    if not identifiers:
        return True
    found = {_fold(w) for w in re.findall(r"[\w-]+", text)}
    return all(folded in found or names_by_acronym(written, text) for folded, written in identifiers.items())


def relevance(
    exposure: str,
    outcome: str,
    passage: str,
    paper_text: str = "",
    share: float = MATCH_SHARE,
    treated: bool = False,
) -> Relevance:
    """The outcome must be named in the passage; the exposure in the passage or in its paper (the
    title and abstract: a results sentence often says "the treatment group"). A phrase named by its
    acronym ("CBT" for cognitive behavioural therapy), or an acronym spelled out, matches too. For a
    claim that the exposure treats the outcome (``treated``), "the management of <outcome>" names it."""
    # what the passage and its paper name by a short form, spelled out from the abstract's own
    # definitions ("GCS", "the primary outcome"); the claim's own short forms likewise
    in_passage = _concepts(spelled_out(passage, paper_text))
    # the exposure is looked for where the study names what it examined, not among what it adjusted for
    examined_passage, examined_paper = without_covariates(passage), without_covariates(paper_text)
    in_paper = _concepts(spelled_out(examined_passage, paper_text)) | _concepts(spelled_out(examined_paper))
    wanted_outcome = _specific(phrase_spelled_out(outcome, paper_text, passage))
    wanted_exposure = _specific(phrase_spelled_out(exposure, paper_text, passage))
    outcome_hits = sorted(wanted_outcome & in_passage)
    exposure_hits = sorted(wanted_exposure & in_paper)
    paper = f"{examined_passage} {examined_paper}"
    exposure_matched = _enough(exposure_hits, wanted_exposure, share) or names_by_acronym(exposure, paper)
    outcome_matched = _enough(outcome_hits, wanted_outcome, share) or names_by_acronym(outcome, passage)
    # an outcome named after the exposure ("total FSH dose" with recombinant FSH) is met by its own words,
    # not by the exposure's name alone
    own_outcome = wanted_outcome - wanted_exposure
    outcome_matched = outcome_matched and (
        not own_outcome or bool(own_outcome & in_passage) or names_by_acronym(outcome, passage)
    )
    # the exact names a part holds ("PD-1", "IL-10") must be named where that part is looked for
    exposure_phrase = phrase_spelled_out(exposure, paper_text, passage)
    outcome_phrase = phrase_spelled_out(outcome, paper_text, passage)
    exposure_matched = exposure_matched and _names_all(
        _identifiers(exposure_phrase), spelled_out(paper, paper_text)
    )
    outcome_matched = outcome_matched and _names_all(
        _identifiers(outcome_phrase), spelled_out(passage, paper_text)
    )
    exposure_matched = exposure_matched and not another_kind(exposure, paper)
    named_outcome = (
        outcome_matched
        and not another_kind(outcome, passage)
        and not another_site(outcome, passage)
        and not named_as_other(outcome, passage)
    )
    as_population = named_outcome and only_as_population(outcome, passage, treated)
    outcome_matched = named_outcome and not as_population
    return Relevance(
        exposure_matched=exposure_matched,
        outcome_matched=outcome_matched,
        exposure_terms=exposure_hits,
        outcome_terms=outcome_hits,
        outcome_as_population=as_population,
        # read only where it decides: a passage already off the claim's parts is not split again
        side_by_side=exposure_matched and outcome_matched and side_by_side(exposure, outcome, passage),
    )


_REFERS_BACK = re.compile(
    r"^(?:none\s+of\s+(?:these|them|those|the\s+\w+)|neither\s+of|"
    r"(?:the|this|these|that)\s+(?:differences?|changes?|effects?|improvements?|reductions?|increases?|"
    r"decreases?|results?|findings?|benefits?))\b",
    re.IGNORECASE,
)


def outcome_sentences(outcome: str, passage: str, share: float = MATCH_SHARE, paper_text: str = "") -> str:
    """The sentences of ``passage`` that name ``outcome``, where some do and others do not: in a
    window of two sentences, a null about adverse events beside a finding on cancer incidence says
    nothing about cancer incidence. The whole passage where none or all of its sentences name it.
    A sentence names the outcome by a short form or as "the primary outcome" where the passage or
    its paper (``paper_text``) defines it so: "The primary outcome occurred in 126 (10.0%) …" names
    deep vein thrombosis, "Skin breaks … (OR 4.18)" beside it does not."""
    from lyra_core.sentences import split_sentences

    sentences = split_sentences(passage)
    if len(sentences) < 2:
        return passage
    wanted = _specific(phrase_spelled_out(outcome, paper_text, passage))
    names = [
        _enough(sorted(wanted & _concepts(spelled_out(s, f"{passage} {paper_text}"))), wanted, share)
        or names_by_acronym(outcome, s)
        for s in sentences
    ]
    # "Grading of murmurs was also rated. None of these yielded any significant differences": a sentence
    # that speaks of the one before it by "these", "neither", "the difference" is about what that one names
    named = [
        s for i, s in enumerate(sentences) if names[i] or (i > 0 and names[i - 1] and _REFERS_BACK.match(s))
    ]
    return " ".join(named) if named and len(named) < len(sentences) else passage
