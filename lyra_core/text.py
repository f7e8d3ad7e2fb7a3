"""Text helpers shared by retrieval stages (BM25 over papers, and later over fragments)."""

from __future__ import annotations

import re
import unicodedata

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
