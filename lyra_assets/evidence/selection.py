"""The evidence selector in ``nli_edges`` (``evidence.selector: on``): each claim is read where the
selector says each of its papers reports the finding, not in the windows nearest it by cosine
(docs/selector.md). One pair per (claim, paper): the window holding the sentence ranked first.
"""

from __future__ import annotations

import pandas as pd

from lyra_core.sentences import split_sentences
from lyra_resources.models.evidence_selector import EvidenceSelector


def papers_of(chosen: list[list[tuple[int, float]]], fragment_pages: list[str]) -> list[dict[str, float]]:
    """For each claim, the papers its chosen pairs come from, with their best cosine (the similarity
    gate reads it)."""
    out = []
    for pairs in chosen:
        best: dict[str, float] = {}
        for fi, sim in pairs:
            page = fragment_pages[fi]
            best[page] = max(sim, best.get(page, -1.0))
        out.append(best)
    return out


def holding(fragments: pd.DataFrame, rows: list[int], sentence: str) -> int | None:
    """The earliest of ``rows`` whose window holds ``sentence``."""
    found = [i for i in rows if sentence in fragments["text"].iat[i]]
    return min(found, key=lambda i: int(fragments["position"].iat[i])) if found else None


def selected_pairs(
    selector: EvidenceSelector,
    claim_texts: list[str],
    chosen: list[list[tuple[int, float]]],
    fragments: pd.DataFrame,
) -> tuple[list[list[tuple[int, float]]], dict[tuple[int, int], float]]:
    """``chosen`` with each claim's pairs replaced by one per paper: the paper's window (among
    ``fragments``) that holds the selector's best sentence among those windows' sentences; and the
    selector's probability of each pair kept, for the edge's reason."""
    pages = fragments["page_id"].tolist()
    rows_of: dict[str, list[int]] = {}
    for i, page in enumerate(pages):
        rows_of.setdefault(page, []).append(i)
    sentences = {
        page: list(dict.fromkeys(s for i in rows for s in split_sentences(fragments["text"].iat[i])))
        for page, rows in rows_of.items()
    }
    wanted = [
        (ci, page, sim) for ci, best in enumerate(papers_of(chosen, pages)) for page, sim in best.items()
    ]
    wanted = [(ci, page, sim) for ci, page, sim in wanted if sentences.get(page)]
    picks = selector.select([claim_texts[ci] for ci, _, _ in wanted], [sentences[p] for _, p, _ in wanted])
    out: list[list[tuple[int, float]]] = [[] for _ in chosen]
    probability: dict[tuple[int, int], float] = {}
    for (ci, page, sim), pick in zip(wanted, picks, strict=True):
        row = holding(fragments, rows_of[page], sentences[page][pick.first])
        if row is not None:
            out[ci].append((row, sim))
            probability[(ci, row)] = pick.probability
    return out, probability
