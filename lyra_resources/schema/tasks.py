"""Tasks, the runs that build their graphs, and the documents a task gathers."""

from __future__ import annotations

from lyra_resources.schema.columns import table

TASKS = table(
    "tasks",
    "one row per research task; the source of truth for task metadata",
    """
    id VARCHAR PRIMARY KEY -- the task's id: `task_` and 8 hex characters unless its creator chose one
    query VARCHAR -- the research question, whitespace collapsed
    created_at TIMESTAMP -- when the task was created (UTC)
    status VARCHAR -- created | queued | running | completed | failed | stopped
    options JSON -- what the task asks for (corpus, claims, watch interval, a verify task's claims), as JSON
    updated_at TIMESTAMP -- when the row last changed (UTC)
    last_run_id VARCHAR -- the Dagster run id of the task's latest run; NULL before its first
    error VARCHAR -- why the latest run failed or was stopped; NULL otherwise
    """,
    per_task=False,
)

RUN_REQUESTS = table(
    "run_requests",
    "one row per run of a task's pipeline asked of the cluster's run queue and not yet created by Dagster's daemon",
    """
    request_id VARCHAR PRIMARY KEY -- the request's id: the run key of the run Dagster creates for it, and its tag
    task_id VARCHAR NOT NULL -- the task whose pipeline run is asked for
    requested_at TIMESTAMP NOT NULL -- when the run was asked for (UTC)
    """,
    per_task=False,
)

TASK_GENERATIONS = table(
    "task_generations",
    "one row per run that staged a task's graph: building → published → replaced (or abandoned / superseded)",
    """
    run_id VARCHAR PRIMARY KEY -- the Dagster run that staged this generation
    task_id VARCHAR -- the task whose graph the run builds
    state VARCHAR -- building | published | replaced (by a later one) | abandoned (run died) | superseded (re-run)
    started_at TIMESTAMP -- when the run began staging (UTC)
    published_at TIMESTAMP -- when its rows became the task's rows (UTC); NULL until published
    exported_at TIMESTAMP -- when the task's Parquet files were rewritten from it (UTC); NULL until then
    inputs_digest VARCHAR -- the digest of what the run read (question, options, corpus files, settings, code, models,
        -- feedback: `lyra_resources.store.run_inputs`); NULL for a task that asks live sources or a run that did not
        -- search; `lyra task run` skips a re-run whose digest equals the published one's
    scoring_rule JSON -- the `evidence` scoring rule (aggregation, vote_weight, min_vote) the run scored its claims
        -- under; every later view of the task re-scores corrected claims under it; NULL before `claim_scores` ran
    """,
    per_task=False,
)

TABLE_INPUTS = table(
    "table_inputs",
    "one row per table a run wrote for a task: the digest of what the rows were built from",
    """
    task_id VARCHAR -- the task
    table_name VARCHAR -- the per-task table the run wrote
    run_id VARCHAR -- the Dagster run that wrote it
    inputs_digest VARCHAR -- the digest of the asset's code and of everything it read (its input tables' rows, the
        -- question, settings, models, domain policy, feedback; the corpus files for the assets that read them):
        -- `lyra_assets.reuse`
    written_at TIMESTAMP -- when the rows were written (UTC)
    """,
    per_task=False,
)

PAPERS = table(
    "papers",
    "canonical papers found for the task, duplicates across sources merged",
    """
    task_id VARCHAR
    paper_id VARCHAR -- `p_` + hash of the strongest identifier (DOI, PMID, arXiv id, title): stable across runs
    doi VARCHAR -- bare DOI, lower case (`10.…/…`); NULL when no source gave one
    pmid VARCHAR -- PubMed id without leading zeros; NULL when unknown
    arxiv_id VARCHAR -- arXiv id without prefix or version (`1706.03762`); NULL when unknown
    title VARCHAR -- title, from the first merged record that has one
    abstract VARCHAR -- the longest abstract among the merged records, whitespace collapsed; NULL if none
    year INTEGER -- publication year; NULL when no source gave one
    venue VARCHAR -- journal or venue as a source reported it
    url VARCHAR -- a source's link to the paper
    sources VARCHAR[] -- `source:id` of every record merged into the paper (`local:…`, `s2:…`, `openalex:…`)
    search_rank INTEGER -- the paper's place among the task's papers, 1 first
    authors VARCHAR[] -- `Family, Given` per author, in the record's order
    """,
)

PAGES = table(
    "pages",
    "every source document of the task: an abstract or a web page",
    """
    task_id VARCHAR
    page_id VARCHAR -- `pg_` + hash of the paper id and kind, or of the final URL for a `web` page: stable
    paper_id VARCHAR -- the paper the page shows (`papers`, `citation_papers`, `identified_papers`); NULL for `web`
    url VARCHAR -- the paper's DOI link (else its URL, PubMed or arXiv link; NULL if none), or a web page's final URL
    domain VARCHAR -- host of `url` without `www.` (`local` for a paper without a link): what trust attaches to
    kind VARCHAR -- abstract | citation (a selected citation paper's abstract) | web (a fetched page)
    title VARCHAR -- the paper's or the web page's title
    """,
)

FRAGMENTS = table(
    "fragments",
    "sentence-window pieces of each page's text, the unit that evidence is judged on",
    """
    task_id VARCHAR
    fragment_id VARCHAR -- `f_` + hash of the page id and the text: stable across runs
    page_id VARCHAR -- the page (`pages`) whose text it is part of
    position INTEGER -- the fragment's place within its page, 0 first
    text VARCHAR -- consecutive sentences (2 a window, 1 apart, by default), cut at a word after 1,200 characters;
        -- section labels of a structured abstract ("RESULTS", "CONCLUSIONS AND RELEVANCE") taken out
    sections VARCHAR[] -- each sentence's section label, lower case (`results`, `methods` …; '' where none)
    """,
)

FRAGMENT_RANKING = table(
    "fragment_ranking",
    "every fragment's score at each ranking stage and its final rank for the task's question",
    """
    task_id VARCHAR
    fragment_id VARCHAR -- the fragment ranked (`fragments`)
    bm25_score DOUBLE -- BM25 of the question against the fragment, over the task's fragments; 0 = no shared term
    bm25_norm DOUBLE -- BM25 scaled 0–1 (min-max) over the BM25 top k; NULL at stage 0
    embedding_score DOUBLE -- cosine of question and fragment embeddings (−1 to 1); NULL at stage 0
    fused_score DOUBLE -- 0.3·bm25_norm + 0.7·embedding_score by default (`ranking` settings); NULL at stage 0
    rerank_score DOUBLE -- cross-encoder probability (0–1) that the fragment is relevant; NULL if not reranked
    trust_weight DOUBLE -- domain trust weight (primary 1.0 … unverified 0.3, blocked 0) × agents' relevance signals
    final_score DOUBLE -- the reranked score (else fused_score) × trust_weight: what final_rank orders; NULL at stage 0
    final_rank INTEGER -- 1 = best, reranked fragments first; NULL at stage 0
    stage INTEGER -- last stage reached: 0 (outside the BM25 top k, 100 by default), 2 (fused), 3 (reranked)
    """,
)
