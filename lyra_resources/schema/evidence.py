"""What a task concludes: claims, the edges that judge them, their scores, topics and answer."""

from __future__ import annotations

from lyra_resources.schema.columns import table

CLAIMS = table(
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

CLAIM_SCOPE = table(
    "claim_scope",
    "the papers each claim of a verify task (`lyra verify`) is judged against, its first paper rank 1: those "
    "the claim names, else its own search hits; `input_id` is the id the claims file gave it. Empty for "
    "other tasks, whose claims meet their most similar fragments",
    """
    task_id VARCHAR
    claim_id VARCHAR
    input_id VARCHAR
    paper_id VARCHAR
    rank INTEGER
    """,
)

NLI_EDGES = table(
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

CLAIM_SCORES = table(
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

CLAIM_TOPICS = table(
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

TASK_ANSWER = table(
    "task_answer",
    "the answer to the task's question: a yes/no question's declarative hypothesis (origin `hypothesis`, "
    "judged like a user's claim; its verdict, scores and papers for / against / judged, each paper voting "
    "by its strongest edge) or an open question (origin `open_question`: no verdict, see the claims)",
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

DOMAIN_VERIFICATION = table(
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
