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
    id VARCHAR PRIMARY KEY -- `fb_` + 16 random hex characters
    task_id VARCHAR -- the task the call was made on
    action VARCHAR -- edge_correct | claim_reject | claim_restore | domain_block | fragment_useful | add_note | …
    target_id VARCHAR -- what it acted on: an edge, claim, fragment or page id, a domain pattern or the task
    payload JSON -- the call's arguments as validated
    outcome VARCHAR -- what the call did, in words
    created_at TIMESTAMP -- when it was applied (UTC)
    applied_to_training BOOLEAN -- written false; training marks `nli_corrections.applied_in_version` instead
    """,
    per_task=False,
)

NLI_CORRECTIONS = table(
    "nli_corrections",
    "edge_correct calls that changed an edge's label: training samples for the NLI adapter",
    """
    id VARCHAR PRIMARY KEY -- `corr_` + 16 random hex characters
    edge_id VARCHAR NOT NULL -- the corrected edge (`nli_edges`)
    task_id VARCHAR -- the edge's task
    premise VARCHAR NOT NULL -- the edge's fragment text, as corrected
    hypothesis VARCHAR NOT NULL -- the edge's claim text, as corrected
    predicted_label VARCHAR NOT NULL -- the edge's relation from the model: SUPPORTS | REFUTES | NEUTRAL
    predicted_confidence DOUBLE NOT NULL -- the edge's `nli_confidence` (0–1)
    correct_label VARCHAR NOT NULL -- the relation the person says holds: SUPPORTS | REFUTES | NEUTRAL
    reason VARCHAR -- the person's reason; NULL if none was given
    corrected_at TIMESTAMP NOT NULL -- when the correction was made (UTC)
    applied_in_version VARCHAR -- the NLI version (`nli_model_versions`) first trained with it; NULL until then
    sample_weight DOUBLE DEFAULT 1.0 -- the sample's weight in training
    wrong_part VARCHAR -- the part of the direction judge's reading the person names as wrong: claim_direction |
        -- passage_direction | exposure | outcome | figures; NULL if none was named
    direction_label VARCHAR -- for a passage_direction correction: the direction the passage reports (increased |
        -- decreased | no_difference), a training label for the direction reader; NULL where the relation does not fix
        -- it
    """,
    per_task=False,
)

EDGE_REVIEWS = table(
    "edge_reviews",
    "the human judgement in force on each reviewed edge (one row per edge; edge_correct)",
    """
    edge_id VARCHAR PRIMARY KEY -- the reviewed edge (`nli_edges`)
    task_id VARCHAR -- the edge's task
    reviewed_at TIMESTAMP -- when it was last reviewed (UTC)
    correct_relation VARCHAR -- the relation the person says holds: SUPPORTS | REFUTES | NEUTRAL; read tools show it
    reason VARCHAR -- the person's reason; NULL if none was given
    human_corrected BOOLEAN -- whether it differs from the model's relation (false: the model was confirmed)
    wrong_part VARCHAR -- the part of the direction judge's reading the person names as wrong (see `nli_corrections`);
        -- NULL if none
    """,
    per_task=False,
)

CLAIM_REJECTIONS = table(
    "claim_rejections",
    "claims a person rejected (claim_reject); claim_restore clears is_active",
    """
    claim_id VARCHAR PRIMARY KEY -- the rejected claim (`claims`)
    task_id VARCHAR -- the claim's task
    reason VARCHAR -- the person's reason; NULL if none was given
    rejected_at TIMESTAMP -- when it was last rejected (UTC)
    restored_at TIMESTAMP -- when claim_restore undid the rejection (UTC); NULL while it holds
    is_active BOOLEAN -- whether the rejection holds: the read tools hide the claim
    """,
    per_task=False,
)

DOMAIN_OVERRIDE_RULES = table(
    "domain_override_rules",
    "user block/unblock rules on domain patterns; at most one active rule per pattern",
    """
    id VARCHAR PRIMARY KEY -- `rule_` + 16 random hex characters
    domain_pattern VARCHAR NOT NULL -- `example.com` (it and its subdomains) or `*.example.com` (subdomains only)
    decision VARCHAR NOT NULL -- block | unblock, for every task
    reason VARCHAR NOT NULL -- the person's reason (may be empty)
    created_at TIMESTAMP -- when the rule was made (UTC)
    is_active BOOLEAN DEFAULT true -- whether it is in force; a newer rule or domain_clear_override retires it
    """,
    per_task=False,
)

DOMAIN_OVERRIDE_EVENTS = table(
    "domain_override_events",
    "audit log of every domain rule change",
    """
    id VARCHAR PRIMARY KEY -- `dev_` + 16 random hex characters
    rule_id VARCHAR -- the rule made or retired (`domain_override_rules`)
    action VARCHAR NOT NULL -- domain_block | domain_unblock | domain_clear_override
    domain_pattern VARCHAR NOT NULL -- the rule's domain pattern
    decision VARCHAR NOT NULL -- the rule's decision: block | unblock
    reason VARCHAR -- the person's reason; NULL if none was given
    created_at TIMESTAMP -- when the change was made (UTC)
    """,
    per_task=False,
)

RELEVANCE_SIGNALS = table(
    "relevance_signals",
    "relevance signals per fragment and task: `returned` (shown to an agent), `explicit_positive`, "
    "`explicit_negative`; `query_id` / `query` name what the fragment answered",
    """
    id VARCHAR PRIMARY KEY -- `rs_` + 16 random hex characters
    task_id VARCHAR -- the fragment's task
    fragment_id VARCHAR -- the fragment signalled (`fragments`)
    signal VARCHAR -- returned (shown to an agent) | explicit_positive | explicit_negative
    query_id VARCHAR -- what the fragment answered: a claim id, or the task id for its question
    query VARCHAR -- that claim's text or the task's question, or the query the agent gave
    created_at TIMESTAMP -- when the signal was recorded (UTC)
    """,
    per_task=False,
)

FEEDBACK_TABLES = [
    "feedback_events",
    "nli_corrections",
    "edge_reviews",
    "claim_rejections",
    "domain_override_rules",
    "domain_override_events",
    "relevance_signals",
]
