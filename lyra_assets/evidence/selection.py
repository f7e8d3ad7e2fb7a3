"""The evidence selector in ``nli_edges`` (``evidence.selector: on``): each claim is read where the
selector says each of its papers reports the finding, not in the windows nearest it by cosine
(docs/selector.md). One pair per (claim, paper): the window holding the sentence ranked first.
"""

from __future__ import annotations

import pandas as pd

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


def papers_to_read(
    chosen: list[list[tuple[int, float]]], fragments: pd.DataFrame
) -> tuple[dict[str, list[int]], list[tuple[int, str, float]]]:
    """Each paper's windows (rows of ``fragments``) in reading order, and every (claim, paper, best
    cosine) that ``chosen`` reaches."""
    pages = fragments["page_id"].tolist()
    rows_of: dict[str, list[int]] = {}
    for i in sorted(range(len(pages)), key=lambda i: int(fragments["position"].iat[i])):
        rows_of.setdefault(pages[i], []).append(i)
    wanted = [
        (ci, page, sim) for ci, best in enumerate(papers_of(chosen, pages)) for page, sim in best.items()
    ]
    return rows_of, wanted


def selected_pairs(
    selector: EvidenceSelector,
    claim_texts: list[str],
    chosen: list[list[tuple[int, float]]],
    fragments: pd.DataFrame,
) -> tuple[list[list[tuple[int, float]]], dict[tuple[int, int], float]]:
    """``chosen`` with each claim's pairs replaced by one per paper: the paper's window (among
    ``fragments``) that holds the selector's best sentence among those windows' sentences; and the
    selector's probability of each pair kept, for the edge's reason."""
    rows_of, wanted = papers_to_read(chosen, fragments)
    picks = selector.select_windows(
        [claim_texts[ci] for ci, _, _ in wanted],
        [[fragments["text"].iat[i] for i in rows_of[page]] for _, page, _ in wanted],
    )
    out: list[list[tuple[int, float]]] = [[] for _ in chosen]
    probability: dict[tuple[int, int], float] = {}
    for (ci, page, sim), (window, p) in zip(wanted, picks, strict=True):
        row = rows_of[page][window]
        out[ci].append((row, sim))
        probability[(ci, row)] = p
    return out, probability
