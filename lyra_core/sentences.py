"""Splitting scientific prose into sentences."""

from __future__ import annotations

import re

# Abbreviations after which a period does not end a sentence (lower-cased, without the period).
_ABBREVIATIONS = {
    "al",
    "e.g",
    "i.e",
    "etc",
    "fig",
    "figs",
    "vs",
    "cf",
    "approx",
    "ca",
    "no",
    "nos",
    "vol",
    "dr",
    "mr",
    "mrs",
    "ms",
    "prof",
    "st",
    "jr",
    "sr",
    "inc",
    "ltd",
    "eq",
    "ref",
    "refs",
    "resp",
    "sp",
    "spp",
    "var",
    "viz",
    "u.s",
    "u.k",
    "e.u",
    "dept",
    "univ",
    "min",
    "max",
    "mol",
    "wt",
}
# A candidate boundary: ., ! or ? (optionally closing quotes/brackets), whitespace, then a capital,
# digit or opening bracket/quote starting the next sentence.
_BOUNDARY = re.compile(r"([.!?][\"')\]]*)\s+(?=[A-Z0-9(\[\"'])")


def split_sentences(text: str) -> list[str]:
    """Sentences of scientific prose; keeps 'et al.', 'e.g.', decimals and initials together."""
    text = " ".join((text or "").split())
    if not text:
        return []
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end(1)
        candidate = text[start:end]
        last_word = re.search(r"(\S+)$", candidate[: -len(match.group(1))] if match.group(1) else candidate)
        word = last_word.group(1).lower().rstrip(".") if last_word else ""
        if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
            continue  # 'et al. Smith', 'J. Smith'
        sentences.append(candidate.strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences
