"""The table contract: names, columns and types that every part of Lyra reads.

Per-task tables carry ``task_id`` first; the store replaces one task's rows at a time.
Adding a column is safe (the store migrates old databases); renaming one breaks readers.
"""

from __future__ import annotations

from pydantic import BaseModel


class Column(BaseModel):
    name: str
    type: str


class TableSpec(BaseModel):
    name: str
    columns: list[Column]
    per_task: bool = True
    description: str = ""

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def ddl(self) -> str:
        cols = ", ".join(f"{c.name} {c.type}" for c in self.columns)
        return f"CREATE TABLE IF NOT EXISTS {self.name} ({cols})"


def _table(name: str, description: str, columns: str, per_task: bool = True) -> TableSpec:
    parsed = []
    for line in columns.strip().splitlines():
        col_name, col_type = line.split(maxsplit=1)
        parsed.append(Column(name=col_name, type=col_type.strip()))
    return TableSpec(name=name, columns=parsed, per_task=per_task, description=description)


TASKS = _table(
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

PAPERS = _table(
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
    """,
)

PAGES = _table(
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

FRAGMENTS = _table(
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

FRAGMENT_RANKING = _table(
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

EMBEDDING_CACHE = _table(
    "embedding_cache",
    "sentence embeddings by model and text hash, so unchanged text is never embedded twice",
    """
    model VARCHAR
    text_hash VARCHAR
    vector FLOAT[]
    """,
    per_task=False,
)

CLAIMS = _table(
    "claims",
    "claims extracted from the top-ranked fragments or stated by the user, deduplicated",
    """
    task_id VARCHAR
    claim_id VARCHAR
    text VARCHAR
    origin VARCHAR
    extractor VARCHAR
    source_fragment_id VARCHAR
    adoption_status VARCHAR
    also_in_fragments VARCHAR[]
    relevance DOUBLE
    extraction_score DOUBLE
    features VARCHAR[]
    """,
)

NLI_EDGES = _table(
    "nli_edges",
    "fragment → claim judgements of the NLI model: SUPPORTS, REFUTES or NEUTRAL",
    """
    task_id VARCHAR
    edge_id VARCHAR
    fragment_id VARCHAR
    claim_id VARCHAR
    relation VARCHAR
    nli_label VARCHAR
    nli_confidence DOUBLE
    source_trust_level VARCHAR
    target_trust_level VARCHAR
    model_version VARCHAR
    similarity DOUBLE
    page_id VARCHAR
    """,
)

CLAIM_SCORES = _table(
    "claim_scores",
    "Bayesian Beta(1,1) scores of each adopted claim, computed from its edges alone",
    """
    task_id VARCHAR
    claim_id VARCHAR
    alpha DOUBLE
    beta DOUBLE
    confidence DOUBLE
    uncertainty DOUBLE
    controversy DOUBLE
    verdict VARCHAR
    supporting_count INTEGER
    refuting_count INTEGER
    neutral_count INTEGER
    independent_sources INTEGER
    evidence_count INTEGER
    method VARCHAR
    """,
)

CLAIM_TOPICS = _table(
    "claim_topics",
    "claims grouped into topics by embedding similarity communities",
    """
    task_id VARCHAR
    topic_id VARCHAR
    label VARCHAR
    label_method VARCHAR
    claim_count INTEGER
    has_contradiction BOOLEAN
    claim_ids VARCHAR[]
    terms VARCHAR[]
    """,
)

NLI_CACHE = _table(
    "nli_cache",
    "NLI results by premise hash, hypothesis hash and model version: unchanged pairs are never re-judged",
    """
    premise_hash VARCHAR
    hypothesis_hash VARCHAR
    model_version VARCHAR
    label VARCHAR
    confidence DOUBLE
    probs JSON
    """,
    per_task=False,
)

TABLES: dict[str, TableSpec] = {
    t.name: t
    for t in (TASKS, PAPERS, PAGES, FRAGMENTS, FRAGMENT_RANKING, CLAIMS, NLI_EDGES, CLAIM_SCORES,
              CLAIM_TOPICS, EMBEDDING_CACHE, NLI_CACHE)
}
PER_TASK_TABLES = [name for name, spec in TABLES.items() if spec.per_task]

