"""Tasks, the runs that build their graphs, and the documents a task gathers."""

from __future__ import annotations

from lyra_resources.schema.columns import table

TASKS = table(
    "tasks",
    "one row per research task; the source of truth for task metadata",
    """
    id VARCHAR PRIMARY KEY
    query VARCHAR
    created_at TIMESTAMP
    status VARCHAR
    options JSON
    updated_at TIMESTAMP
    last_run_id VARCHAR
    error VARCHAR
    """,
    per_task=False,
)

TASK_GENERATIONS = table(
    "task_generations",
    "one row per run that staged a task's graph: building → published (or abandoned / superseded)",
    """
    run_id VARCHAR PRIMARY KEY
    task_id VARCHAR
    state VARCHAR
    started_at TIMESTAMP
    published_at TIMESTAMP
    exported_at TIMESTAMP
    """,
    per_task=False,
)

PAPERS = table(
    "papers",
    "canonical papers found for the task, duplicates across sources merged",
    """
    task_id VARCHAR
    paper_id VARCHAR
    doi VARCHAR
    pmid VARCHAR
    arxiv_id VARCHAR
    title VARCHAR
    abstract VARCHAR
    year INTEGER
    venue VARCHAR
    url VARCHAR
    sources VARCHAR[]
    search_rank INTEGER
    authors VARCHAR[]
    """,
)

PAGES = table(
    "pages",
    "every source document of the task: an abstract or a web page",
    """
    task_id VARCHAR
    page_id VARCHAR
    paper_id VARCHAR
    url VARCHAR
    domain VARCHAR
    kind VARCHAR
    title VARCHAR
    """,
)

FRAGMENTS = table(
    "fragments",
    "sentence-window pieces of each page's text, the unit that evidence is judged on",
    """
    task_id VARCHAR
    fragment_id VARCHAR
    page_id VARCHAR
    position INTEGER
    text VARCHAR
    """,
)

FRAGMENT_RANKING = table(
    "fragment_ranking",
    "every fragment's score at each ranking stage and its final rank for the task's question",
    """
    task_id VARCHAR
    fragment_id VARCHAR
    bm25_score DOUBLE
    bm25_norm DOUBLE
    embedding_score DOUBLE
    fused_score DOUBLE
    rerank_score DOUBLE
    trust_weight DOUBLE
    final_score DOUBLE
    final_rank INTEGER
    stage INTEGER
    """,
)
