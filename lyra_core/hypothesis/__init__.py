"""A research question as Lyra judges it: a yes/no question becomes its declarative hypothesis.

Every question that opens with an auxiliary (do/does/did, is/are/was/were, has/have/had, the
modals, and their negative contractions) is a yes/no question. Its subject is split from its
predicate by the sentence's structure (lyra_core.hypothesis.predicate) and the auxiliary put back
in agreement: "Does vitamin D supplementation reduce fracture risk?" → "Vitamin D supplementation
reduces fracture risk." (reading ``rule``). Where the structure leaves two readings, the
hypothesis is the question without its auxiliary: "Does alcohol use increase risk?" → "Alcohol use
increase risk." (reading ``fallback``) — faithful, if not always grammatical, and still judged.

A negative question asks about the positive claim ("Doesn't X reduce Y?" is answered yes when X
reduces Y), so its hypothesis is positive; "Does X not reduce Y?" keeps its "not". An open
question (What/How/Why…) or a statement is left as it is (origin ``open_question``).
"""

from __future__ import annotations

import re

from lyra_core.hypothesis.headings import after_heading
from lyra_core.hypothesis.parsed import (
    FALLBACK,
    HYPOTHESIS,
    OPEN_QUESTION,
    RULE,
    ParsedQuestion,
    Reading,
    capitalize,
    done,
)
from lyra_core.hypothesis.predicate import Cut, base_verb, copula_predicate, perfect_participle, title_case
from lyra_core.hypothesis.words import (
    AUXILIARIES,
    COPULAS,
    DETERMINERS,
    DO,
    HAVE,
    OPEN_WORDS,
    bare,
    is_adverb,
    past,
    third_person,
)

__all__ = [
    "FALLBACK",
    "HYPOTHESIS",
    "OPEN_QUESTION",
    "RULE",
    "ParsedQuestion",
    "Reading",
    "done",
    "is_yes_no",
    "reading_note",
    "to_hypothesis",
]

_TOKEN = re.compile(r"\S+")
_OR_NOT = re.compile(r",?\s+or\s+not\s*\?$", re.IGNORECASE)


_READING_NOTES = {
    RULE: "read by rule from the question",
    FALLBACK: "the question without its auxiliary: no grammatical reading was sure",
}


def reading_note(reading: str | None) -> str:
    """How the hypothesis was read, in words for a reader ("" for an open question or an answer
    stored before readings were recorded)."""
    return _READING_NOTES.get(reading or "", "")


def _subject(words: list[str]) -> str:
    first = words[0]
    if first.isalpha() and first[0].isupper() and first[1:].islower() and bare(first) in DETERMINERS:
        words = [first.lower(), *words[1:]]
    return capitalize(" ".join(words))


def is_yes_no(question: str) -> bool:
    """Whether the question opens with an auxiliary and has something to ask about."""
    words = question.split()
    return len(words) >= 3 and bare(words[0]) in AUXILIARIES


def to_hypothesis(question: str) -> ParsedQuestion:
    """The declarative hypothesis of a yes/no question; ``open_question`` for anything else."""
    text = _OR_NOT.sub("?", " ".join(question.split()).strip())
    opener = bare(text.split()[0]) if text else ""
    if opener not in AUXILIARIES and opener not in OPEN_WORDS:
        headed = after_heading(text, to_hypothesis)
        if headed is not None:
            return headed
    words = _TOKEN.findall(text.rstrip("?").rstrip())
    if not is_yes_no(text):
        return ParsedQuestion(origin=OPEN_QUESTION)
    aux, rest = AUXILIARIES[opener], words[1:]
    rest[-1] = rest[-1].rstrip("?")
    title_case(rest)
    fallback = done([_subject(rest[:1]), *rest[1:]], FALLBACK)  # the question without its auxiliary
    if [bare(w) for w in rest[:3]] == ["it", "true", "that"] and len(rest) > 3:  # "Is it true that X?" → X
        return done([capitalize(" ".join(rest[3:]))])
    if aux in COPULAS:
        if bare(rest[0]) == "there":  # "Is there a link…?" → "There is a link…"
            tail = rest[2:] if len(rest) > 2 and bare(rest[1]) == "any" else rest[1:]
            return done(["There", aux, *tail])
        cut = copula_predicate(rest)
        return _rebuild(rest, cut, [aux], fallback)
    if aux in HAVE:
        return _rebuild(rest, perfect_participle(rest), [aux], fallback)
    cut = base_verb(rest)
    if aux == "do" and (cut is None or bare(rest[cut.start]) not in ("not", "never", "be")):
        return done([_subject(rest[:1]), *rest[1:]])  # plural do-support: the verb is already in its form
    if cut is None or not cut.sure:
        return fallback
    if aux in DO and bare(rest[cut.start]) not in ("not", "never", "be"):
        verb = rest[cut.start]
        inflected = third_person(verb) if aux == "does" else past(verb)
        return done([_subject(rest[: cut.start]), inflected, *rest[cut.start + 1 :]])
    return _rebuild(rest, cut, [aux], fallback)


def _rebuild(rest: list[str], cut: Cut | None, aux: list[str], fallback: ParsedQuestion) -> ParsedQuestion:
    """Subject, auxiliary, predicate: the auxiliary goes before any adverbs that lead the predicate
    ("Can X really predict…" → "X can really predict…")."""
    if cut is None or not cut.sure or cut.start < 1:
        return fallback
    at = cut.start
    while at > 1 and is_adverb(bare(rest[at - 1])):
        at -= 1
    return done([_subject(rest[:at]), *aux, *rest[at:]])
