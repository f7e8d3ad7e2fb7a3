"""A title-style question: the question asked after a heading ("Measuring mortality: are 30-day
data enough?"), or the heading itself as what is asked about ("Xanthogranulomatous
cholecystitis: a premalignant condition?")."""

from __future__ import annotations

import re
from collections.abc import Callable

from lyra_core.hypothesis.parsed import HYPOTHESIS, ParsedQuestion, done
from lyra_core.hypothesis.words import AUXILIARIES, DETERMINERS, OPEN_WORDS, PREPOSITIONS, bare, is_base_verb

_HEADING = re.compile(
    r"^(?P<heading>.{3,}?)(?::\s+|\s*--\s*|\.\s+(?=[A-Z])|,\s+(?=(?:a|an|the)\s))(?P<asked>[^:]+\?)$"
)
_STANDS_FOR_HEADING = {"it", "they", "this", "these"}


def after_heading(text: str, read: Callable[[str], ParsedQuestion]) -> ParsedQuestion | None:
    """The question after a heading read by ``read``: "Multidisciplinary clinics. Do they work?"
    (the pronoun stands for the heading), "Delayed diagnosis of X: are guidelines sufficient?"
    (the heading kept as what it is about); None when ``text`` has no heading."""
    match = _HEADING.match(text)
    if match is None or not text.endswith("?"):
        return None
    heading, asked = match.group("heading").strip(), match.group("asked").strip()
    parsed = read(asked[:1].upper() + asked[1:])
    if parsed.origin == HYPOTHESIS and parsed.hypothesis:
        first, _, rest = parsed.hypothesis.partition(" ")
        if first.lower() in _STANDS_FOR_HEADING and rest and parsed.reading == "rule":
            return done([heading, rest.rstrip(".")], parsed.reading)
        if _mentions(parsed.hypothesis, heading):
            return parsed
        body = parsed.hypothesis.rstrip(".")
        if first.isalpha() and first[:1].isupper() and first[1:].islower():
            body = body[:1].lower() + body[1:]
        return done(
            ["In", heading[:1].lower() + heading[1:] if heading[1:2].islower() else heading, ",", body],
            parsed.reading,
        )
    first_word = bare(asked.split()[0])
    if first_word in OPEN_WORDS or first_word in AUXILIARIES or is_base_verb(first_word):
        return None  # an open question after the heading, or one the rules cannot read
    return done([heading, "is", asked.rstrip("?").rstrip()])


def _content_words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9-]{4,}", text.lower())) - DETERMINERS - PREPOSITIONS


def _mentions(sentence: str, heading: str) -> bool:
    """Whether ``sentence`` already names at least half of what the heading is about."""
    wanted = _content_words(heading)
    return not wanted or len(wanted & _content_words(sentence)) * 2 >= len(wanted)
