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
    paper_id VARCHAR -- the paper followed: a task paper (`papers`) at depth 1, a selected candidate deeper
    candidate_paper_id VARCHAR -- the paper it cites or is cited by (`citation_papers`; a task paper keeps its id)
    direction VARCHAR -- references (the paper cites the candidate) | cited_by (the candidate cites the paper)
    is_influential BOOLEAN -- whether an API flagged the citation influential (Semantic Scholar's flag)
    embed_similarity DOUBLE -- cosine of the paper's abstract (else title) and the candidate's; NULL without an abstract
    stage1_score DOUBLE -- 0.5·is_influential + 0.5·max(0, embed_similarity), 0–1; NULL without an abstract
    llm_score DOUBLE -- stage-2 relevance 0–10 (the LLM's, else 10 × question cosine); NULL outside stage-1's top 30
    stage2_method VARCHAR -- what gave llm_score: ollama:<model> | fallback:question-cosine; NULL when it is NULL
    final_score DOUBLE -- 0.5·llm_score/10 + 0.3·stage1_score + 0.2·is_influential, 0–1; NULL with llm_score
    selected BOOLEAN -- among the paper's 10 best by final_score (`citations.selected_per_paper`)
    sources VARCHAR[] -- `source:id` of every API record that reported the link
    depth INTEGER -- 1 for the task's papers' links, 2 or 3 for links of papers selected one depth before
    question_similarity DOUBLE -- cosine of the task's question and the candidate's abstract; NULL with llm_score
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
    source_page_id VARCHAR -- the citing page (`pages`)
    target_page_id VARCHAR -- the cited page (`pages`)
    relation VARCHAR -- always CITES
    is_influential BOOLEAN -- whether an API flagged the citation influential (Semantic Scholar's flag)
    """,
)
