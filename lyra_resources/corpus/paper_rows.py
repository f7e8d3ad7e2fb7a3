"""Canonical papers as rows of the ``papers`` table, and back."""

from __future__ import annotations

from typing import Any

import pandas as pd

from lyra_core.cells import cell_list
from lyra_core.papers import CanonicalPaper
from lyra_resources.schema import TABLES


def paper_row(paper: CanonicalPaper) -> dict[str, Any]:
    """A paper's columns as every table of papers holds them (``papers``, ``citation_papers``,
    ``identified_papers``), its rank and the table's own columns aside."""
    return {
        "paper_id": paper.paper_id,
        "doi": paper.doi,
        "pmid": paper.pmid,
        "arxiv_id": paper.arxiv_id,
        "title": paper.title,
        "abstract": paper.abstract,
        "year": paper.year,
        "venue": paper.venue,
        "url": paper.url,
        "sources": paper.sources,
        "authors": paper.authors,
    }


def papers_frame(papers: list[CanonicalPaper], table: str = "papers") -> pd.DataFrame:
    """Rows of ``table`` (a table of papers), best first: ``search_rank``, where the table has it,
    is each paper's place in ``papers``; a column of the table no paper fills is left empty."""
    rows = [paper_row(p) | {"search_rank": rank} for rank, p in enumerate(papers, start=1)]
    return pd.DataFrame(rows, columns=TABLES[table].data_columns).astype({"year": "Int64"})


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
