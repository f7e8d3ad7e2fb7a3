"""``citation_edges``: the citation expansions as ``CITES`` edges between the task's pages.

Apart from :mod:`lyra_assets.citations.tracking` because it reads ``pages``, which itself reads the
citation tables.
"""

import pandas as pd
from dagster import MetadataValue, Output

from lyra_assets import documents
from lyra_assets.citations.tracking import citation_expansions_spec
from lyra_assets.metadata import table_metadata
from lyra_assets.task_assets import task_table
from lyra_resources.schema import TABLES

EDGE_COLUMNS = TABLES["citation_edges"].data_columns


def cites_edges(expansions: pd.DataFrame, pages: pd.DataFrame) -> pd.DataFrame:
    """``CITES`` edges (citing page → cited page) for every expansion row whose two papers both
    have a page: the task's papers with abstracts, and the selected citation papers."""
    kind_order = {"abstract": 0, "citation": 1}
    ordered = pages.assign(_k=pages["kind"].map(kind_order).fillna(9)).sort_values("_k")
    page_of = dict(ordered.drop_duplicates("paper_id")[["paper_id", "page_id"]].itertuples(index=False))
    edges: dict[tuple[str, str], bool] = {}
    for row in expansions.itertuples(index=False):
        a, b = page_of.get(row.paper_id), page_of.get(row.candidate_paper_id)
        if not a or not b or a == b:
            continue
        key = (a, b) if row.direction == "references" else (b, a)
        edges[key] = edges.get(key, False) or bool(row.is_influential)
    frame = pd.DataFrame(
        [
            {"source_page_id": s, "target_page_id": t, "relation": "CITES", "is_influential": i}
            for (s, t), i in sorted(edges.items())
        ],
        columns=EDGE_COLUMNS,
    )
    return frame


@task_table(ins={"citation_expansions": citation_expansions_spec, "pages": documents.pages})
def citation_edges(citation_expansions: pd.DataFrame, pages: pd.DataFrame) -> Output[pd.DataFrame]:
    """Citation links between the task's pages: one `CITES` edge from the citing page to the cited one.

    Made from `citation_expansions` wherever both papers have a page (the task's papers with an
    abstract and the selected citation papers); `is_influential` is Semantic Scholar's flag."""
    frame = cites_edges(citation_expansions, pages)
    titles = pages.set_index("page_id")["title"]
    preview = frame.assign(
        citing=frame["source_page_id"].map(titles), cited=frame["target_page_id"].map(titles)
    )
    return Output(
        frame,
        metadata={
            **table_metadata(preview, ["citing", "cited", "is_influential"]),
            "influential": MetadataValue.int(int(frame["is_influential"].sum()) if len(frame) else 0),
        },
    )
