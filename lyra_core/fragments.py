"""Page text as sentence-window fragments with stable ids, section labels taken out of the text."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, Field

from lyra_core.sections import labelled_sentences
from lyra_core.sentences import split_sentences

__all__ = ["FRAGMENT_MAX_CHARS", "Fragment", "fragment_id_for", "make_fragments", "split_sentences"]

FRAGMENT_MAX_CHARS = 1200  # a window of two long sentences fits whole


class Fragment(BaseModel):
    fragment_id: str
    page_id: str
    position: int
    text: str  # the window's sentences, without the section labels of a structured abstract
    sections: list[str] = Field(
        default_factory=list,
        description="each sentence's section label (`results`, `methods` …; '' where none)",
    )


def fragment_id_for(page_id: str, text: str) -> str:
    """Stable across runs: same page and same text give the same id (position-independent)."""
    return "f_" + hashlib.sha1(f"{page_id}\x1f{text}".encode()).hexdigest()[:16]


def make_fragments(
    page_id: str, text: str, *, window: int = 2, stride: int = 1, max_chars: int = FRAGMENT_MAX_CHARS
) -> list[Fragment]:
    """Overlapping windows of ``window`` sentences every ``stride`` sentences.

    A short text gives one fragment; the last window always reaches the final sentence, so no
    sentence is left out. Identical windows (repeated boilerplate) are kept once. Section labels
    ("RESULTS", "CONCLUSIONS AND RELEVANCE") are taken out of the text and kept in ``sections``.
    """
    labelled = labelled_sentences(text)
    sentences = [body for body, _ in labelled]
    labels = [label or "" for _, label in labelled]
    if not sentences:
        return []
    starts = list(range(0, max(len(sentences) - window, 0) + 1, stride))
    if starts[-1] + window < len(sentences):
        starts.append(len(sentences) - window)
    fragments: list[Fragment] = []
    seen: set[str] = set()
    for start in starts:
        chunk = " ".join(sentences[start : start + window])
        if len(chunk) > max_chars:
            chunk = chunk[:max_chars].rsplit(" ", 1)[0]
        fid = fragment_id_for(page_id, chunk)
        if fid in seen:
            continue
        seen.add(fid)
        fragments.append(
            Fragment(
                fragment_id=fid,
                page_id=page_id,
                position=len(fragments),
                text=chunk,
                sections=labels[start : start + window],
            )
        )
    return fragments
