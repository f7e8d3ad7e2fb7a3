"""Citation tracking: the citation expansion of a task's papers and the edges between its pages."""

from __future__ import annotations

from lyra_resources.schema.columns import TableSpec, table
from lyra_resources.schema.tasks import PAPERS

CITATION_EXPANSIONS = table(
    "citation_expansions",
    "every reference and citing paper of each task paper (S2 + OpenAlex, deduplicated), with its "
    "stage-1 score (0.5 influential + 0.5 cosine), stage-2 relevance and final score; top 10 per paper selected",
    """
    task_id VARCHAR
    paper_id VARCHAR
    candidate_paper_id VARCHAR
    direction VARCHAR
    is_influential BOOLEAN
    embed_similarity DOUBLE
    stage1_score DOUBLE
    llm_score DOUBLE
    stage2_method VARCHAR
    final_score DOUBLE
    selected BOOLEAN
    sources VARCHAR[]
    depth INTEGER
    question_similarity DOUBLE
    """,
)

CITATION_PAPERS = TableSpec(
    name="citation_papers",
    description="the candidate papers met during citation expansion that are not among the task's papers "
    "(selected ones become `citation` pages)",
    columns=[c for c in PAPERS.columns if c.name not in ("search_rank", "authors")],
)

CITATION_EDGES = table(
    "citation_edges",
    "page → page CITES edges between the task's pages (its papers and the selected citation papers)",
    """
    task_id VARCHAR
    source_page_id VARCHAR
    target_page_id VARCHAR
    relation VARCHAR
    is_influential BOOLEAN
    """,
)
