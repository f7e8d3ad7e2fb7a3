"""What reading a question gives: a hypothesis to judge (and how it was read) or an open question,
and the sentence a hypothesis is written as. The readers of :mod:`lyra_core.hypothesis` (its
rules, the heading rule of :mod:`lyra_core.hypothesis.headings`) all build on it."""

from __future__ import annotations

import re
from typing import Final, Literal

from pydantic import BaseModel

HYPOTHESIS: Final = "hypothesis"
OPEN_QUESTION: Final = "open_question"
RULE: Final = "rule"
FALLBACK: Final = "fallback"
Reading = Literal["rule", "fallback", "open_question"]


class ParsedQuestion(BaseModel):
    """What a task's question asks: a hypothesis to judge, or an open question.

    ``reading`` says how the hypothesis was made: ``rule`` (the question's grammar was read and the
    sentence rebuilt), ``fallback`` (the question without its auxiliary: a paraphrase kept close to
    the words asked) or ``open_question`` (no hypothesis)."""

    origin: Literal["hypothesis", "open_question"]
    hypothesis: str | None = None  # the declarative sentence judged, for a yes/no question
    reading: Reading = OPEN_QUESTION


def capitalize(text: str) -> str:
    """Upper-case the first letter (after any opening quote or bracket); "30-day data…" stays as it is."""
    match = re.search(r"[A-Za-z0-9]", text)
    if match is None or match.group().isdigit():
        return text
    return text[: match.start()] + text[match.start()].upper() + text[match.start() + 1 :]


def done(words: list[str], reading: Reading = RULE) -> ParsedQuestion:
    """The hypothesis made of ``words``, as one capitalised sentence ending with a period."""
    sentence = " ".join(w for w in words if w).replace(" , ", ", ").rstrip(" ,;:.")
    return ParsedQuestion(origin=HYPOTHESIS, hypothesis=capitalize(sentence) + ".", reading=reading)
