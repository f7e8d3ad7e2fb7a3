"""What a task concludes: claims, the edges that judge them, their scores, topics and answer."""

from __future__ import annotations

from lyra_resources.schema.columns import table

CLAIMS = table(
    "claims",
    "claims extracted from the top-ranked fragments or stated by the user, deduplicated",
    """
    task_id VARCHAR
    claim_id VARCHAR -- `c_` + hash of the task and the text (case and spacing ignored): stable across runs
    text VARCHAR -- the claim, one sentence
    origin VARCHAR -- extracted | user | hypothesis (the task's yes/no question restated as a claim)
    extractor VARCHAR -- local-rules | ollama:<model> | user | question-rules (the hypothesis)
    source_fragment_id VARCHAR -- the fragment it was extracted from; NULL for a user's claim or the hypothesis
    adoption_status VARCHAR -- adopted (judged against fragments) | not_adopted (kept in the graph, unjudged)
    also_in_fragments VARCHAR[] -- other fragments whose near-identical claims were merged into this one
    relevance DOUBLE -- relevance to the question, roughly 0–1: cosine mixed with coverage of the question's terms
    extraction_score DOUBLE -- the local extractor's cue score; 3 for an LLM's claim, 10 a user's, 0 the hypothesis
    features VARCHAR[] -- cues that made it a claim (`effect`, `statistic`, …) and the role model's `finding:<p>`
    """,
)

CLAIM_SCOPE = table(
    "claim_scope",
    "the papers each claim of a verify task (`lyra verify`) is judged against, its first paper rank 1: those "
    "the claim names, else its own search hits; `input_id` is the id the claims file gave it. Empty for "
    "other tasks, whose claims meet their most similar fragments",
    """
    task_id VARCHAR
    claim_id VARCHAR -- the verify task's claim (`claims`)
    input_id VARCHAR -- the id the claims file gave the claim
    paper_id VARCHAR -- a paper (`papers`) the claim is judged against
    rank INTEGER -- the paper's place for this claim, 1 first: the order the claim names them, else search order
    """,
)

NLI_EDGES = table(
    "nli_edges",
    "fragment → claim judgements: SUPPORTS, REFUTES or NEUTRAL with the probability of each, composed from the "
    "directions the claim and the fragment state for an effect claim, the cross-encoder's for any other; "
    "every edge with its reason",
    """
    task_id VARCHAR
    edge_id VARCHAR -- `e_` + hash of the task, fragment and claim ids: stable across runs
    fragment_id VARCHAR -- the premise: the fragment judged (`fragments`)
    claim_id VARCHAR -- the hypothesis: the adopted claim judged (`claims`)
    relation VARCHAR -- SUPPORTS | REFUTES | NEUTRAL; NEUTRAL whatever the model says below `evidence.min_similarity`
    nli_label VARCHAR -- the model's own label: entailment | contradiction | neutral
    nli_confidence DOUBLE -- calibrated probability (0–1) of `nli_label`
    source_trust_level VARCHAR -- trust level of the fragment's domain (primary … unverified, blocked); never scored
    target_trust_level VARCHAR -- trust level of the domain the claim came from; NULL if none (user claim, hypothesis)
    model_version VARCHAR -- the NLI version that judged: `<model>@<weights hash>`, `+<adapter>` for a LoRA adapter
    similarity DOUBLE -- cosine of the claim's and the fragment's embeddings (−1 to 1)
    page_id VARCHAR -- the fragment's page (`pages`): each page casts one vote in `claim_scores`
    p_supports DOUBLE -- calibrated probability (0–1) that the fragment supports the claim (entailment)
    p_refutes DOUBLE -- calibrated probability (0–1) that the fragment refutes the claim (contradiction)
    p_neutral DOUBLE -- calibrated probability (0–1) that the fragment neither supports nor refutes it
    judged_by VARCHAR -- direction (an effect claim: its parts composed the relation, docs/direction.md) | cross-encoder
    claim_direction VARCHAR -- what the claim asserts: increase | decrease | association (a plain association: either
        -- direction bears it out) | no_effect | not_increase | not_decrease; NULL for the cross-encoder
    passage_direction VARCHAR -- what the fragment reports for the claim's outcome: increased | decreased |
        -- no_difference; NULL when not read
    effect_figures VARCHAR -- the figures that show it, each with its interval or p-value ("OR 0.69, 0.64–0.74"; a
        -- direction edge: read where the fragment names the claim's outcome; the cross-encoder's edge: the fragment's
        -- first two); empty when the fragment states none
    exposure_matched BOOLEAN -- the fragment or its paper names the claim's exposure; NULL for the cross-encoder
    outcome_matched BOOLEAN -- the fragment names the claim's outcome; NULL for the cross-encoder
    reason VARCHAR -- why the edge says what it says, in one line
    study_design VARCHAR -- meta_analysis | rct | cohort | registry | case_control | cross_sectional | animal_cell |
        -- human_cells | review | other (none stated): the design of the fragment's paper, read from its title and
        -- text, the fragment last (lyra_core.study_design); NULL on an edge written before designs were read
    design_cue VARCHAR -- the words that decided `study_design`, as written ("randomly assigned"); NULL when no cue did
    sample_size INTEGER -- people or animals studied: the randomised or enrolled total (cases and controls together)
        -- the paper's text states, else the fragment's; NULL when neither states one
    """,
)

CLAIM_SCORES = table(
    "claim_scores",
    "Bayesian Beta(1,1) scores of each adopted claim, computed from its edges alone",
    """
    task_id VARCHAR
    claim_id VARCHAR -- the adopted claim scored (`claims`)
    alpha DOUBLE -- Beta parameter α: 1 + the supporting votes, each its probability × `evidence.vote_weight`
    beta DOUBLE -- Beta parameter β: 1 + the refuting votes, each its probability × `evidence.vote_weight`
    confidence DOUBLE -- α / (α + β), 0–1: how likely the claim holds given its evidence
    uncertainty DOUBLE -- standard deviation of Beta(α, β), 0–0.29 (0 with `method` legacy)
    controversy DOUBLE -- min(α − 1, β − 1) / (α + β − 2), 0–0.5: how evenly the evidence splits
    verdict VARCHAR -- well_supported | supported | unverified | likely_false | contested
    supporting_count INTEGER -- the claim's SUPPORTS edges
    refuting_count INTEGER -- the claim's REFUTES edges
    neutral_count INTEGER -- the claim's NEUTRAL edges
    independent_sources INTEGER -- distinct pages among the SUPPORTS edges
    evidence_count INTEGER -- all edges of the claim
    method VARCHAR -- bayesian | legacy (`evidence.use_bayesian_confidence`)
    certainty VARCHAR -- high | moderate | low | very_low: how far the votes on the side the verdict takes can be
        -- trusted, graded from their study designs, number, consistency, sizes and how they were read
        -- (docs/scoring.md#certainty); well_supported needs moderate or high
    certainty_reasons VARCHAR -- what lowered the certainty, "; "-separated ("observational studies only; one study");
        -- empty at the level its designs start from
    """,
)

CLAIM_TOPICS = table(
    "claim_topics",
    "claims grouped into topics by embedding similarity communities",
    """
    task_id VARCHAR
    topic_id VARCHAR -- `t_` + hash of the task and the topic's claim ids
    label VARCHAR -- the topic's distinctive terms, comma-separated, general words and adverbs left out (`claims` when
        -- it has none)
    label_method VARCHAR -- how the label was made: distinctive-terms (terms frequent here, rare in other topics)
    claim_count INTEGER -- claims in the topic
    has_contradiction BOOLEAN -- whether one of its claims has strong votes both for and against it (`conflicting`
        -- evidence)
    claim_ids VARCHAR[] -- its adopted claims (`claims`); claims similar to no other share the last topic
    terms VARCHAR[] -- up to 3 distinctive terms, most distinctive first
    """,
)

TASK_ANSWER = table(
    "task_answer",
    "the answer to the task's question: a yes/no question's declarative hypothesis (origin `hypothesis`, "
    "judged like a user's claim; its verdict, scores and papers for / against / judged, each paper voting "
    "by its strongest edge) or an open question (origin `open_question`: no verdict, see the claims)",
    """
    task_id VARCHAR
    hypothesis VARCHAR -- the question restated as a declarative claim; NULL for an open question
    origin VARCHAR -- hypothesis | open_question
    verdict VARCHAR -- the hypothesis's verdict as in `claim_scores` (unverified if unscored); NULL for an open question
    confidence DOUBLE -- the hypothesis's confidence (0–1); NULL for an open question
    uncertainty DOUBLE -- the hypothesis's uncertainty; NULL for an open question
    controversy DOUBLE -- the hypothesis's controversy (0–0.5); NULL for an open question
    certainty VARCHAR -- the hypothesis's certainty as in `claim_scores` (high | moderate | low | very_low); NULL for
        -- an open question
    certainty_reasons VARCHAR -- what lowered it, as in `claim_scores`; NULL for an open question
    supporting_papers INTEGER -- papers whose strongest edge SUPPORTS the hypothesis (at least `evidence.min_vote`)
    refuting_papers INTEGER -- papers whose strongest edge REFUTES the hypothesis (at least `evidence.min_vote`)
    papers_judged INTEGER -- papers with at least one edge to the hypothesis, voting or not
    strongest_support_edge VARCHAR -- the edge (`nli_edges`) of the strongest supporting vote; NULL if none
    strongest_refute_edge VARCHAR -- the edge (`nli_edges`) of the strongest refuting vote; NULL if none
    question_reading VARCHAR -- rule | fallback | open_question: how the hypothesis was read from the question
        -- (fallback: the question without its auxiliary, no grammatical reading being sure)
    not_addressed VARCHAR -- the line saying no passage that voted (none judged, with no vote) is about both the
        -- hypothesis's exposure and outcome, with the closest papers; NULL when one is, or for an open question
    """,
)

DOMAIN_VERIFICATION = table(
    "domain_verification",
    "per domain of the task: trust level before and after source verification, with reason and cause ids",
    """
    task_id VARCHAR
    domain VARCHAR -- a domain on either side of the task's edges (a fragment's page or a claim's page)
    original_trust_level VARCHAR -- its trust level in the domain policy (config/domains.yaml) before verification
    trust_level VARCHAR -- its level after: `low` when promoted, `blocked` when blocked, else unchanged
    status VARCHAR -- VERIFIED | PENDING | REJECTED | BLOCKED | UNCHANGED
    promotion VARCHAR -- PROMOTED | DEMOTED | UNCHANGED
    reason VARCHAR -- the decision in words
    cause_ids VARCHAR[] -- the edges (`nli_edges`) behind the decision
    rejection_rate DOUBLE -- contradictions it lost / judgements, 0–1 (above 0.3 may block a low-trust domain)
    judgements INTEGER -- claims the domain was judged on
    corroborating_domains VARCHAR[] -- other domains whose fragments support claims from this one
    blocked_at TIMESTAMP -- when verification blocked it (UTC); NULL unless BLOCKED
    can_restore BOOLEAN -- true for a blocked domain: a user override restores it
    restore_via VARCHAR -- where to restore it (`config/domains.yaml user_overrides`); NULL unless BLOCKED
    """,
)
