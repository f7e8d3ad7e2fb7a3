"""What an abstract names by a short form, read from the abstract itself.

Abstracts define their abbreviations once ("graduated compression stockings (GCS)", "deep vein
thrombosis (DVT)") and their outcomes once ("The primary outcome was the occurrence of … DVT"), then
speak of "GCS", "DVT" and "the primary outcome". A passage cut from such an abstract is about the
long forms, and a claim that uses either form is about the same thing. Definitions are found by the
Schwartz–Hearst algorithm (Schwartz & Hearst, 2003): a short form in parentheses after its long form
(or the reverse), the long form the shortest run of words before it whose letters hold the short
form's characters in order, the first character starting a word.
"""

from __future__ import annotations

import re
from functools import lru_cache

_PARENS = re.compile(r"\(([^()]{1,120})\)")
_WORD = re.compile(r"\S+")
# "the primary outcome was X", "the primary end point was X", "Primary outcomes were X and Y"
_OUTCOME_DEFINED = re.compile(
    r"\b(?P<which>primary|main|secondary)\s+(?:efficacy\s+|safety\s+)?(?:outcomes?|end[\s-]?points?)"
    r"(?:\s+measures?)?\s*(?:was|were|is|are|included|includes|comprised|:)\s+(?P<what>[^.;]{3,200})",
    re.IGNORECASE,
)
_OUTCOME_NAMED = re.compile(
    r"\b(primary|main|secondary)\s+(?:efficacy\s+|safety\s+)?(?:outcomes?|end[\s-]?points?)\b", re.IGNORECASE
)


def _short_form(candidate: str) -> str | None:
    """The short form a parenthesis may hold: two to ten characters, at most two words, a letter
    among them and an upper-case one (so "(n=1256)", "(10.0%)" and "(see below)" are not)."""
    text = re.split(r"[;,]", candidate, maxsplit=1)[0].strip()
    if not 2 <= len(text) <= 10 or len(text.split()) > 2 or not text[0].isalnum():
        return None
    if not any(c.isupper() for c in text) or not any(c.isalpha() for c in text):
        return None
    return text


def _long_form(short: str, words_before: str) -> str | None:
    """The shortest tail of ``words_before`` that holds the short form's letters and digits in
    order, its first character at the start of a word (Schwartz–Hearst's matching, from the end)."""
    s_index, l_index = len(short) - 1, len(words_before) - 1
    while s_index >= 0:
        char = short[s_index].lower()
        if not char.isalnum():
            s_index -= 1
            continue
        while l_index >= 0 and (
            words_before[l_index].lower() != char
            or (s_index == 0 and l_index > 0 and words_before[l_index - 1].isalnum())
        ):
            l_index -= 1
        if l_index < 0:
            return None
        l_index -= 1
        s_index -= 1
    start = words_before.rfind(" ", 0, l_index + 1) + 1
    long = words_before[start:].strip(" ,;:")
    if not long or short.lower() in long.lower().split() or len(long) <= len(short):
        return None
    return long


@lru_cache(maxsize=4096)
def definitions(text: str) -> dict[str, str]:
    """Each short form ``text`` defines, with its long form: "graduated compression stockings
    (GCS)" → {"GCS": "graduated compression stockings"}; the first definition of a short form holds."""
    found: dict[str, str] = {}
    for match in _PARENS.finditer(text):
        inner, before = match.group(1), text[: match.start()].rstrip()
        short = _short_form(inner)
        if short is not None:
            limit = min(len(short) + 5, len(short) * 2)
            words = _WORD.findall(before)[-limit:]
            long = _long_form(short, " ".join(words))
        else:  # "GCS (graduated compression stockings)": the short form before the parenthesis
            previous = _WORD.findall(before)[-1:] or [""]
            short = _short_form(previous[0].strip(",;:"))
            long = _long_form(short, inner.strip()) if short else None
            if long is not None and len(long) < len(inner.strip()) * 0.5:
                long = None
        if short and long and short not in found:
            found[short] = long
    return found


@lru_cache(maxsize=4096)
def outcome_definitions(text: str) -> dict[str, str]:
    """What ``text`` says its primary (main, secondary) outcome was: "The primary outcome was the
    occurrence of symptomatic or asymptomatic DVT …" → {"primary": "the occurrence of …"}."""
    found: dict[str, str] = {}
    for match in _OUTCOME_DEFINED.finditer(text):
        found.setdefault(match.group("which").lower(), match.group("what").strip())
    return found


def _named(short: str, text: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(short)}s?(?![A-Za-z0-9])", text) is not None


def spelled_out(text: str, paper_text: str = "") -> str:
    """``text`` with the long form of every short form it names that it or ``paper_text`` defines,
    and the outcome that "the primary outcome" stands for, appended: what ``text`` is about, in
    the words a claim may use."""
    # each text's definitions are cached on their own: a paper meets many passages
    outcomes = {**outcome_definitions(text), **outcome_definitions(paper_text)}
    extra = [
        outcomes[which]
        for which in sorted({m.group(1).lower() for m in _OUTCOME_NAMED.finditer(text)})
        if which in outcomes
    ]
    named = " ".join([text, *extra])  # "the primary outcome was … DVT …": its short forms spelled out too
    defined = {**definitions(text), **definitions(paper_text)}
    extra += [long for short, long in defined.items() if _named(short, named)]
    return " ".join([text, *extra]) if extra else text


def phrase_spelled_out(phrase: str, *texts: str) -> str:
    """A claim's phrase with each short form that one of ``texts`` defines replaced by its long form
    ("DVT after stroke" → "deep vein thrombosis after stroke")."""
    defined = {short: long for text in reversed(texts) for short, long in definitions(text).items()}
    for short, long in defined.items():
        if _named(short, phrase):
            phrase = re.sub(rf"(?<![A-Za-z0-9]){re.escape(short)}s?(?![A-Za-z0-9])", long, phrase)
    return phrase
