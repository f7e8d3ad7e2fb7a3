"""Human feedback: an overlay on the model outputs, never replaced by a re-run."""

from __future__ import annotations

from lyra_resources.schema.columns import table

# These tables are not partitioned by task (per_task=False), so ``replace_partition`` and
# ``delete_task`` never touch them; rows are keyed by the stable ids (edge_id, claim_id,
# fragment_id) and apply again to every later materialization of the task.

FEEDBACK_EVENTS = table(
    "feedback_events",
    "audit log: one row per accepted feedback call, whatever its action",
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

NLI_CORRECTIONS = table(
    "nli_corrections",
    "edge_correct calls that changed an edge's label: training samples for the NLI adapter",
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

EDGE_REVIEWS = table(
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

CLAIM_REJECTIONS = table(
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

DOMAIN_OVERRIDE_RULES = table(
    "domain_override_rules",
    "user block/unblock rules on domain patterns; at most one active rule per pattern",
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

DOMAIN_OVERRIDE_EVENTS = table(
    "domain_override_events",
    "audit log of every domain rule change",
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

RELEVANCE_SIGNALS = table(
    "relevance_signals",
    "relevance signals per fragment and task: `returned` (shown to an agent), `explicit_positive`, "
    "`explicit_negative`; `query_id` / `query` name what the fragment answered",
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

FEEDBACK_TABLES = ["feedback_events", "nli_corrections", "edge_reviews", "claim_rejections",
                   "domain_override_rules", "domain_override_events", "relevance_signals"]
