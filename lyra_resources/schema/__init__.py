"""The table contract: names, columns and types that every part of Lyra reads.

Per-task tables carry ``task_id`` first; the store replaces one task's rows at a time.
Adding a column is safe (the store migrates old databases); renaming one breaks readers.
The tables are defined by area in this package's modules; its public names are the registry.
"""

from __future__ import annotations

from lyra_resources.schema.citations import CITATION_EDGES, CITATION_EXPANSIONS, CITATION_PAPERS
from lyra_resources.schema.columns import Column, TableSpec
from lyra_resources.schema.evidence import (
    CLAIM_SCOPE,
    CLAIM_SCORES,
    CLAIM_TOPICS,
    CLAIMS,
    DOMAIN_VERIFICATION,
    NLI_EDGES,
    TASK_ANSWER,
)
from lyra_resources.schema.feedback import (
    CLAIM_REJECTIONS,
    DOMAIN_OVERRIDE_EVENTS,
    DOMAIN_OVERRIDE_RULES,
    EDGE_REVIEWS,
    FEEDBACK_EVENTS,
    FEEDBACK_TABLES,
    NLI_CORRECTIONS,
    RELEVANCE_SIGNALS,
)
from lyra_resources.schema.models import EMBEDDING_CACHE, NLI_CACHE, NLI_MODEL_VERSIONS
from lyra_resources.schema.requests import MCP_REQUESTS
from lyra_resources.schema.tasks import (
    FRAGMENT_RANKING,
    FRAGMENTS,
    PAGES,
    PAPERS,
    RUN_REQUESTS,
    TABLE_INPUTS,
    TASK_GENERATIONS,
    TASKS,
)
from lyra_resources.schema.web import IDENTIFIED_PAPERS, SERP_RESULTS, WEB_PAGES

TABLES: dict[str, TableSpec] = {
    t.name: t
    for t in (
        TASKS,
        PAPERS,
        PAGES,
        FRAGMENTS,
        FRAGMENT_RANKING,
        CLAIMS,
        CLAIM_SCOPE,
        NLI_EDGES,
        CLAIM_SCORES,
        CLAIM_TOPICS,
        TASK_ANSWER,
        EMBEDDING_CACHE,
        NLI_CACHE,
        FEEDBACK_EVENTS,
        NLI_CORRECTIONS,
        EDGE_REVIEWS,
        CLAIM_REJECTIONS,
        DOMAIN_OVERRIDE_RULES,
        DOMAIN_OVERRIDE_EVENTS,
        RELEVANCE_SIGNALS,
        DOMAIN_VERIFICATION,
        CITATION_EXPANSIONS,
        CITATION_PAPERS,
        CITATION_EDGES,
        SERP_RESULTS,
        WEB_PAGES,
        IDENTIFIED_PAPERS,
        NLI_MODEL_VERSIONS,
        MCP_REQUESTS,
        RUN_REQUESTS,
    )
}
PER_TASK_TABLES = [name for name, spec in TABLES.items() if spec.per_task]

# -- generations: a run's rows are staged, then published in one transaction ------------------------
# A run of the task pipeline writes every per-task table into ``stage_<table>`` under its run id; its
# last asset (``task_graph``) swaps them into the task's rows at once, so readers see the previous
# materialization or the new one, never a mix. ``task_generations`` records each run's generation.

STAGE_PREFIX = "stage_"
STAGING_TABLES: dict[str, TableSpec] = {
    name: TableSpec(
        name=STAGE_PREFIX + name,
        columns=[
            Column(
                name="run_id", type="VARCHAR", description="the run that staged the row (`task_generations`)"
            ),
            *spec.columns,
        ],
        per_task=False,
        description=f"rows of {name} staged by a run, not yet published",
    )
    for name, spec in TABLES.items()
    if spec.per_task
}
TABLES[TASK_GENERATIONS.name] = TASK_GENERATIONS
TABLES[TABLE_INPUTS.name] = TABLE_INPUTS

__all__ = [
    "CITATION_EDGES",
    "CITATION_EXPANSIONS",
    "CITATION_PAPERS",
    "CLAIMS",
    "CLAIM_REJECTIONS",
    "CLAIM_SCOPE",
    "CLAIM_SCORES",
    "CLAIM_TOPICS",
    "DOMAIN_OVERRIDE_EVENTS",
    "DOMAIN_OVERRIDE_RULES",
    "DOMAIN_VERIFICATION",
    "EDGE_REVIEWS",
    "EMBEDDING_CACHE",
    "FEEDBACK_EVENTS",
    "FEEDBACK_TABLES",
    "FRAGMENTS",
    "FRAGMENT_RANKING",
    "IDENTIFIED_PAPERS",
    "MCP_REQUESTS",
    "NLI_CACHE",
    "NLI_CORRECTIONS",
    "NLI_EDGES",
    "NLI_MODEL_VERSIONS",
    "PAGES",
    "PAPERS",
    "PER_TASK_TABLES",
    "RELEVANCE_SIGNALS",
    "RUN_REQUESTS",
    "SERP_RESULTS",
    "STAGE_PREFIX",
    "STAGING_TABLES",
    "TABLES",
    "TABLE_INPUTS",
    "TASKS",
    "TASK_ANSWER",
    "TASK_GENERATIONS",
    "WEB_PAGES",
    "Column",
    "TableSpec",
]
