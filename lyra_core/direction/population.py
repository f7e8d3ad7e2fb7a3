"""Who a study is of, as opposed to what it found: a phrase named only as the population studied
("women with type 2 diabetes had more breast cancer" is not about getting type 2 diabetes), and
the word runs that name a concept, which the relevance check (``lyra_core.direction.relevance``)
reads too."""

from __future__ import annotations

import re

from lyra_core.direction.terms import concepts as _concepts
from lyra_core.direction.terms import specific as _specific
from lyra_core.direction.terms import word_concepts as _word_concepts
from lyra_core.text import index_terms

# Who a study is of: "women with type 2 diabetes", "diabetic patients", "mouse models of obesity".
POPULATION = set(
    index_terms(
        "patients patient subjects participants individuals people persons women men adults children adolescents "
        "youth infants mothers pregnancies veterans those cases mice rats animals population populations cohort"
    )
)
TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*")
# The course of a condition people already have: "remission of type 2 diabetes" is not getting it.
_COURSE = {
    "remission",
    "treatment",
    "treating",
    "management",
    "resolution",
    "complications",
    "duration",
    "history",
}
MEASURES = {
    "proportion",
    "percentage",
    "number",
    "share",
    "rate",
    "rates",
    "incidence",
    "prevalence",
    "fraction",
    "odds",
    "risk",
    "count",
    "numbers",
}


_HOW_MUCH = {
    "increased",
    "reduced",
    "decreased",
    "elevated",
    "lowered",
    "raised",
    "higher",
    "lower",
    "greater",
    "less",
    "more",
    "high",
    "low",
    "the",
    "a",
    "an",
    "no",
    "any",
    "incident",
}


def _which_cases(word: str) -> bool:
    """A word that says which cases of a condition people have ("documented", "newly", "prior"), not
    how much of it or what happened to it."""
    return (
        word not in _HOW_MUCH
        and word not in _COURSE
        and (
            word.endswith(("ed", "ly"))
            or word
            in {
                "prior",
                "existing",
                "pre-existing",
                "preexisting",
                "known",
                "early",
                "advanced",
                "severe",
                "mild",
                "moderate",
                "gestational",
                "chronic",
                "longstanding",
                "long-standing",
                "established",
                "uncontrolled",
            }
        )
    )


def named_runs(concepts: list[frozenset[str]], words: list[str], wanted: set[str]) -> list[tuple[int, int]]:
    """Word-index spans of the runs of ``words`` whose ``concepts`` hold one of ``wanted``; a run of
    figures ("2" of "2 years", "13-2" of "1.13-2.54") names nothing."""
    spans, start = [], None
    for i, found in enumerate([*concepts, frozenset()]):
        if found & wanted and start is None:
            start = i
        elif not found & wanted and start is not None:
            if any(re.search("[A-Za-z]", words[j]) for j in range(start, i)):
                spans.append((start, i))
            start = None
    return spans


# the course words that name the very condition a treatment claim is about ("management of insomnia")
_TREATING = {"remission", "treatment", "treating", "management", "resolution"}


def only_as_population(phrase: str, text: str, treated: bool = False) -> bool:
    """Whether every mention of ``phrase`` in ``text`` names who was studied rather than what
    happened to them ("women with type 2 diabetes had more breast cancer" is not about getting type
    2 diabetes): after "<people> with|without|having" (a few words of the phrase's kind between), before
    "patients", "subjects" …, after "models of", or after the course of a condition ("remission of",
    "treatment of") the phrase does not name; for a claim that a treatment works on the condition
    (``treated``), its treatment, management or remission names it. False where ``text`` does not
    mention it."""
    course = _COURSE - _TREATING if treated else _COURSE
    words = TOKEN.findall(text)
    concepts = [_word_concepts(w) for w in words]
    spans = named_runs(concepts, words, _specific(phrase))
    if not spans:
        return False

    named_people = _concepts(phrase) & POPULATION  # "Plasmodium-positive patients" names people itself
    own = {w.lower() for w in TOKEN.findall(phrase)}

    def population(begin: int, end: int) -> bool:
        after = (concepts[end] if end < len(words) else frozenset()) - named_people
        before = [w.lower() for w in words[max(0, begin - 5) : begin]]
        counted = (
            len(before) >= 4 and before[-3] == "of" and before[-4] in MEASURES
        )  # "proportion of patients with X"
        # "men with documented diabetes", "patients with newly diagnosed type 2 diabetes": up to two
        # words that say which cases (not how much) between "with" and the mention
        gap = 0
        while gap < 2 and len(before) > gap + 2 and _which_cases(before[-1 - gap]):
            gap += 1
        people_with = before[: len(before) - gap]
        return (
            bool(after & POPULATION)
            or (
                len(people_with) >= 2
                and people_with[-1] in ("with", "without", "having")
                and not counted
                and bool(_word_concepts(people_with[-2]) & POPULATION)
            )
            or before[-2:] in (["models", "of"], ["model", "of"])
            or (len(before) >= 2 and before[-1] == "of" and before[-2] in course and before[-2] not in own)
        )

    return all(population(begin, end) for begin, end in spans)
