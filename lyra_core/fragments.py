"""Splitting page text into sentences and sentence-window fragments with stable ids."""

from __future__ import annotations

import hashlib
import re

from pydantic import BaseModel

# Abbreviations after which a period does not end a sentence (lower-cased, without the period).
_ABBREVIATIONS = {
    "al", "e.g", "i.e", "etc", "fig", "figs", "vs", "cf", "approx", "ca", "no", "nos", "vol",
    "dr", "mr", "mrs", "ms", "prof", "st", "jr", "sr", "inc", "ltd", "eq", "ref", "refs", "resp",
    "sp", "spp", "var", "viz", "u.s", "u.k", "e.u", "dept", "univ", "min", "max", "mol", "wt",
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
        last_word = re.search(r"(\S+)$", candidate[:-len(match.group(1))] if match.group(1) else candidate)
        word = last_word.group(1).lower().rstrip(".") if last_word else ""
        if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
            continue  # 'et al. Smith', 'J. Smith'
        sentences.append(candidate.strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


class Fragment(BaseModel):
    fragment_id: str
    page_id: str
    position: int
    text: str


def fragment_id_for(page_id: str, text: str) -> str:
    """Stable across runs: same page and same text give the same id (position-independent)."""
    return "f_" + hashlib.sha1(f"{page_id}\x1f{text}".encode()).hexdigest()[:16]


def make_fragments(
    page_id: str, text: str, *, window: int = 2, stride: int = 1, max_chars: int = 1200
) -> list[Fragment]:
    """Overlapping windows of ``window`` sentences every ``stride`` sentences.

    A short text gives one fragment; the last window always reaches the final sentence, so no
    sentence is left out. Identical windows (repeated boilerplate) are kept once.
    """
    sentences = split_sentences(text)
    if not sentences:
        return []
    starts = list(range(0, max(len(sentences) - window, 0) + 1, stride))
    if starts[-1] + window < len(sentences):
        starts.append(len(sentences) - window)
    fragments: list[Fragment] = []
    seen: set[str] = set()
    for start in starts:
        chunk = " ".join(sentences[start:start + window])
        if len(chunk) > max_chars:
            chunk = chunk[:max_chars].rsplit(" ", 1)[0]
        fid = fragment_id_for(page_id, chunk)
        if fid in seen:
            continue
        seen.add(fid)
        fragments.append(Fragment(fragment_id=fid, page_id=page_id, position=len(fragments), text=chunk))
    return fragments
