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

    @property
    def data_columns(self) -> list[str]:
        """The columns an asset's frame carries: all but ``task_id``, which the store adds."""
        return [c for c in self.column_names if c != "task_id"]

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
    authors VARCHAR[]
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
    "fragment → claim judgements of the NLI model: SUPPORTS, REFUTES or NEUTRAL, with the calibrated "
    "probability of each",
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
    p_supports DOUBLE
    p_refutes DOUBLE
    p_neutral DOUBLE
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

TASK_ANSWER = _table(
    "task_answer",
    "the answer to the task's question: a yes/no question's declarative hypothesis (origin ``hypothesis``, "
    "judged like a user's claim; its verdict, scores and papers for / against / judged, each paper voting "
    "by its strongest edge) or an open question (origin ``open_question``: no verdict, see the claims)",
    """
    task_id VARCHAR
    hypothesis VARCHAR
    origin VARCHAR
    verdict VARCHAR
    confidence DOUBLE
    uncertainty DOUBLE
    controversy DOUBLE
    supporting_papers INTEGER
    refuting_papers INTEGER
    papers_judged INTEGER
    strongest_support_edge VARCHAR
    strongest_refute_edge VARCHAR
    """,
)

CLAIM_SCOPE = _table(
    "claim_scope",
    "the papers each claim of a verify task (`lyra verify`) is judged against, its first paper rank 1: those "
    "the claim names, else its own search hits; ``input_id`` is the id the claims file gave it. Empty for "
    "other tasks, whose claims meet their most similar fragments",
    """
    task_id VARCHAR
    claim_id VARCHAR
    input_id VARCHAR
    paper_id VARCHAR
    rank INTEGER
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

# -- human feedback: an overlay on the model outputs, never replaced by a re-run -----------------
# These tables are not partitioned by task (per_task=False), so ``replace_partition`` and
# ``delete_task`` never touch them; rows are keyed by the stable ids (edge_id, claim_id,
# fragment_id) and apply again to every later materialization of the task.

FEEDBACK_EVENTS = _table(
    "feedback_events",
    "audit log: one row per accepted feedback call (seed 000's feedback table, every action)",
    """
    id VARCHAR PRIMARY KEY
    task_id VARCHAR
    action VARCHAR
    target_id VARCHAR
    payload JSON
    outcome VARCHAR
    created_at TIMESTAMP
    applied_to_training BOOLEAN
    """,
    per_task=False,
)

NLI_CORRECTIONS = _table(
    "nli_corrections",
    "edge_correct calls that changed an edge's label: training samples for the NLI adapter (seed 001)",
    """
    id VARCHAR PRIMARY KEY
    edge_id VARCHAR NOT NULL
    task_id VARCHAR
    premise VARCHAR NOT NULL
    hypothesis VARCHAR NOT NULL
    predicted_label VARCHAR NOT NULL
    predicted_confidence DOUBLE NOT NULL
    correct_label VARCHAR NOT NULL
    reason VARCHAR
    corrected_at TIMESTAMP NOT NULL
    applied_in_version VARCHAR
    sample_weight DOUBLE DEFAULT 1.0
    """,
    per_task=False,
)

EDGE_REVIEWS = _table(
    "edge_reviews",
    "the human judgement in force on each reviewed edge (one row per edge; edge_correct)",
    """
    edge_id VARCHAR PRIMARY KEY
    task_id VARCHAR
    reviewed_at TIMESTAMP
    correct_relation VARCHAR
    reason VARCHAR
    human_corrected BOOLEAN
    """,
    per_task=False,
)

CLAIM_REJECTIONS = _table(
    "claim_rejections",
    "claims a person rejected (claim_reject); claim_restore clears is_active",
    """
    claim_id VARCHAR PRIMARY KEY
    task_id VARCHAR
    reason VARCHAR
    rejected_at TIMESTAMP
    restored_at TIMESTAMP
    is_active BOOLEAN
    """,
    per_task=False,
)

DOMAIN_OVERRIDE_RULES = _table(
    "domain_override_rules",
    "user block/unblock rules on domain patterns (seed 001); at most one active rule per pattern",
    """
    id VARCHAR PRIMARY KEY
    domain_pattern VARCHAR NOT NULL
    decision VARCHAR NOT NULL
    reason VARCHAR NOT NULL
    created_at TIMESTAMP
    is_active BOOLEAN DEFAULT true
    """,
    per_task=False,
)

DOMAIN_OVERRIDE_EVENTS = _table(
    "domain_override_events",
    "audit log of every domain rule change (seed 001)",
    """
    id VARCHAR PRIMARY KEY
    rule_id VARCHAR
    action VARCHAR NOT NULL
    domain_pattern VARCHAR NOT NULL
    decision VARCHAR NOT NULL
    reason VARCHAR
    created_at TIMESTAMP
    """,
    per_task=False,
)

RELEVANCE_SIGNALS = _table(
    "relevance_signals",
    "seed 004 signals per fragment and task: 'returned' (shown to an agent), 'explicit_positive', "
    "'explicit_negative'; query_id/query name what the fragment answered",
    """
    id VARCHAR PRIMARY KEY
    task_id VARCHAR
    fragment_id VARCHAR
    signal VARCHAR
    query_id VARCHAR
    query VARCHAR
    created_at TIMESTAMP
    """,
    per_task=False,
)

DOMAIN_VERIFICATION = _table(
    "domain_verification",
    "per domain of the task: trust level before and after source verification, with reason and cause ids",
    """
    task_id VARCHAR
    domain VARCHAR
    original_trust_level VARCHAR
    trust_level VARCHAR
    status VARCHAR
    promotion VARCHAR
    reason VARCHAR
    cause_ids VARCHAR[]
    rejection_rate DOUBLE
    judgements INTEGER
    corroborating_domains VARCHAR[]
    blocked_at TIMESTAMP
    can_restore BOOLEAN
    restore_via VARCHAR
    """,
)

FEEDBACK_TABLES = ["feedback_events", "nli_corrections", "edge_reviews", "claim_rejections",
                   "domain_override_rules", "domain_override_events", "relevance_signals"]



# -- citation tracking (phase 5): written by the ``citation_expansions`` and ``citation_edges`` assets --

CITATION_EXPANSIONS = _table(
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
    "(selected ones become ``citation`` pages)",
    columns=[c for c in PAPERS.columns if c.name not in ("search_rank", "authors")],
)

CITATION_EDGES = _table(
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



# -- browser stages (phases 1 and 6): written by the ``serp_results`` and ``web_pages`` assets --------

SERP_RESULTS = _table(
    "serp_results",
    "browser search results per engine: rank, link (redirects unwrapped), title, snippet, and the "
    "DOIs / PMIDs / arXiv ids they name",
    """
    task_id VARCHAR
    engine VARCHAR
    query VARCHAR
    rank INTEGER
    url VARCHAR
    title VARCHAR
    snippet VARCHAR
    domain VARCHAR
    dois VARCHAR[]
    pmids VARCHAR[]
    arxiv_ids VARCHAR[]
    """,
)

WEB_PAGES = _table(
    "web_pages",
    "pages fetched with the browser: main text, citation metadata, the identifiers found on them "
    "(the page's own first), and how the fetch went; page_id hashes the final URL",
    """
    task_id VARCHAR
    page_id VARCHAR
    url VARCHAR
    final_url VARCHAR
    domain VARCHAR
    title VARCHAR
    text VARCHAR
    status VARCHAR
    error VARCHAR
    http_status INTEGER
    truncated BOOLEAN
    page_doi VARCHAR
    dois VARCHAR[]
    pmids VARCHAR[]
    arxiv_ids VARCHAR[]
    citation JSON
    source VARCHAR
    fetched_at TIMESTAMP
    depth INTEGER
    """,
)

NLI_MODEL_VERSIONS = _table(
    "nli_model_versions",
    "every NLI model version: the shipped base and each LoRA adapter trained from corrections, with "
    "the gate's figures side by side (held-out corrections, SNLI regression set) and its status "
    "(active / rejected / retired); exactly one is active",
    """
    version VARCHAR PRIMARY KEY
    parent VARCHAR
    base_model VARCHAR
    adapter_path VARCHAR
    created_at TIMESTAMP
    status VARCHAR
    corrections_used INTEGER
    heldout_corrections INTEGER
    replay_pairs INTEGER
    steps INTEGER
    train_seconds DOUBLE
    heldout_before DOUBLE
    heldout_after DOUBLE
    regression_before DOUBLE
    regression_after DOUBLE
    decision VARCHAR
    activated_at TIMESTAMP
    details JSON
    """,
    per_task=False,
)

IDENTIFIED_PAPERS = TableSpec(
    name="identified_papers",
    description="papers behind the DOIs / PMIDs / arXiv ids that search results and fetched pages named, "
    "looked up by identifier in the live APIs (the phase 6 → 3 loop); those with an abstract become "
    "``abstract`` pages; ``depth`` is the loop round that found them",
    columns=[*(c for c in PAPERS.columns if c.name != "search_rank"), Column(name="depth", type="INTEGER")],
)


TABLES: dict[str, TableSpec] = {
    t.name: t
    for t in (TASKS, PAPERS, PAGES, FRAGMENTS, FRAGMENT_RANKING, CLAIMS, CLAIM_SCOPE, NLI_EDGES, CLAIM_SCORES,
              CLAIM_TOPICS, TASK_ANSWER, EMBEDDING_CACHE, NLI_CACHE, FEEDBACK_EVENTS, NLI_CORRECTIONS, EDGE_REVIEWS,
              CLAIM_REJECTIONS, DOMAIN_OVERRIDE_RULES, DOMAIN_OVERRIDE_EVENTS, RELEVANCE_SIGNALS,
              DOMAIN_VERIFICATION, CITATION_EXPANSIONS, CITATION_PAPERS, CITATION_EDGES, SERP_RESULTS, WEB_PAGES,
              IDENTIFIED_PAPERS, NLI_MODEL_VERSIONS)
}
PER_TASK_TABLES = [name for name, spec in TABLES.items() if spec.per_task]

# -- generations: a run's rows are staged, then published in one transaction ------------------------
# A run of the task pipeline writes every per-task table into ``stage_<table>`` under its run id; its
# last asset (``task_graph``) swaps them into the task's rows at once, so readers see the previous
# materialization or the new one, never a mix. ``task_generations`` records each run's generation.

TASK_GENERATIONS = _table(
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

STAGE_PREFIX = "stage_"
STAGING_TABLES: dict[str, TableSpec] = {
    name: TableSpec(name=STAGE_PREFIX + name, columns=[Column(name="run_id", type="VARCHAR"), *spec.columns],
                    per_task=False, description=f"rows of {name} staged by a run, not yet published")
    for name, spec in TABLES.items() if spec.per_task
}
TABLES[TASK_GENERATIONS.name] = TASK_GENERATIONS
