"""Text helpers shared by retrieval stages (BM25 over papers, and later over fragments)."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Protocol

# Lucene's English stop set plus frequent function words of scientific abstracts. Kept small on
# purpose: BM25's idf already discounts common words; this only trims the very commonest.
STOP_WORDS: frozenset[str] = frozenset(
    """
    a about above after again all also am an and any are as at be been before being between both
    but by can could did do does doing during each few for from further had has have having he her
    here hers him his how however if in into is it its itself may me might more most my no nor not
    of off on once only or other our ours out over own same she should so some such than that the
    their theirs them then there these they this those through thus to too under until up upon very
    was we were what when where which while who whom why will with within without would you your
    """.split()
)

# \w minus underscore: letters and digits of any script.
_TOKEN_RE = re.compile(r"[^\W_]+")


def fold_accents(text: str) -> str:
    """``naïve`` → ``naive``, so accented and plain spellings match."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokenize(text: str | None) -> list[str]:
    """Lower-cased alphanumeric tokens, without stop words and one-character tokens.

    ``"The IL-6 receptor's role"`` → ``["il", "receptor", "role"]``.
    """
    if not text:
        return []
    tokens = _TOKEN_RE.findall(fold_accents(text).lower())
    return [tok for tok in tokens if len(tok) > 1 and tok not in STOP_WORDS]


# A word, or a compound whose parts are joined by a hyphen or a dot ("IL-6", "H2A.Z", "COVID-19").
_COMPOUND_RE = re.compile(r"[^\W_]+(?:[-.][^\W_]+)*")
_PART_RE = re.compile(r"[-.]")


class _Stemmer(Protocol):
    """What Lyra uses of PyStemmer's stemmer (the package has no type information)."""

    def stemWords(self, words: list[str]) -> list[str]: ...


@lru_cache(maxsize=1)
def _stemmer() -> _Stemmer:
    import Stemmer  # PyStemmer: the Snowball English stemmer in C

    stemmer: _Stemmer = Stemmer.Stemmer("english")
    return stemmer


def science_tokens(text: str | None) -> list[str]:
    """``tokenize`` that keeps what names things in science, unstemmed.

    Besides every part of a compound, a compound with a short or numeric part is also kept whole
    (``IL-6`` → ``il``, ``il6``; ``COVID-19`` → ``covid``, ``19``, ``covid19``; ``H2A.Z`` → ``h2a``,
    ``h2az``), numbers stay (``type 2``), and a capital letter after a word is kept with it
    (``vitamin D`` → ``vitamin``, ``vitamin_d``), where ``tokenize`` drops one-letter tokens.
    """
    if not text:
        return []
    words = _COMPOUND_RE.findall(fold_accents(text))
    out: list[str] = []
    for i, word in enumerate(words):
        kept = _word_tokens(word)
        if kept is not None:
            out.extend(kept)
        elif i > 0 and (low := word.lower()) not in STOP_WORDS:
            out.append(f"{words[i - 1].lower()}_{low}")
    return out


@lru_cache(maxsize=200_000)
def _word_tokens(word: str) -> tuple[str, ...] | None:
    """What one word of ``science_tokens`` yields alone; None for a capital letter alone, whose
    token joins the word before it. Cached: a corpus repeats its words."""
    low = word.lower()
    parts = [p for p in _PART_RE.split(low) if p]
    out = tuple(p for p in parts if (len(p) > 1 or p.isdigit()) and p not in STOP_WORDS)
    if len(parts) > 1 and any(len(p) <= 2 or p.isdigit() for p in parts):
        return (*out, "".join(parts))
    if len(word) == 1 and word.isupper():
        return None
    return out


def index_terms(text: str | None) -> list[str]:
    """What BM25 indexes and searches: ``science_tokens``, Snowball-stemmed (``reduces``,
    ``reduced``, ``reduction`` → ``reduc``), so a query matches a paper's other word forms."""
    return _stemmer().stemWords(science_tokens(text))
