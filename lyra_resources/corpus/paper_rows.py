"""Canonical papers as rows of the ``papers`` table, and back."""

from __future__ import annotations

import pandas as pd

from lyra_core.cells import cell_list
from lyra_core.papers import CanonicalPaper
from lyra_resources.schema import TABLES


def papers_frame(papers: list[CanonicalPaper]) -> pd.DataFrame:
    """``papers`` rows, best first: ``search_rank`` is each paper's place in ``papers``."""
    rows = [
        {
            "paper_id": p.paper_id,
            "doi": p.doi,
            "pmid": p.pmid,
            "arxiv_id": p.arxiv_id,
            "title": p.title,
            "abstract": p.abstract,
            "year": p.year,
            "venue": p.venue,
            "url": p.url,
            "sources": p.sources,
            "search_rank": rank,
            "authors": p.authors,
        }
        for rank, p in enumerate(papers, start=1)
    ]
    return pd.DataFrame(rows, columns=TABLES["papers"].data_columns).astype({"year": "Int64"})


def papers_from_frame(frame: pd.DataFrame) -> list[CanonicalPaper]:
    """The ``papers`` table's rows as CanonicalPapers, best rank first."""
    out = []
    for row in frame.sort_values("search_rank").to_dict("records"):
        sources = cell_list(row.pop("sources", None))
        authors = cell_list(row.pop("authors", None))
        clean = {k: (None if pd.isna(v) else v) for k, v in row.items()}
        out.append(
            CanonicalPaper(
                paper_id=clean["paper_id"],
                doi=clean.get("doi"),
                pmid=clean.get("pmid"),
                arxiv_id=clean.get("arxiv_id"),
                title=clean.get("title") or "",
                abstract=clean.get("abstract"),
                year=int(clean["year"]) if clean.get("year") is not None else None,
                venue=clean.get("venue"),
                url=clean.get("url"),
                sources=sources,
                authors=authors,
                best_rank=int(clean.get("search_rank") or 0),
            )
        )
    return out
