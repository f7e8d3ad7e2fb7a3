"""The answers of the exploration tools, as pydantic models: what an agent (through MCP) or the
CLI gets back, each small enough to read in one go. The reviewed graph's own records (a topic, a
claim in brief) come from :mod:`lyra_resources.store.reviewed_graph.records`, which reads them."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from lyra_core.answer import AnswerView
from lyra_core.scoring import ClaimScore
from lyra_core.untrusted import MarksUntrusted, UntrustedText
from lyra_resources.store.reviewed_graph.records import ClaimBrief, Topic


class Statistics(BaseModel):
    total_claims: int = Field(description="adopted claims, rejected ones excluded")
    rejected_claims: int
    not_adopted_claims: int = Field(description="extracted but never judged (outside the top claims)")
    total_pages: int
    total_fragments: int
    supports_edges: int
    refutes_edges: int
    neutral_edges: int
    human_reviewed_edges: int
    human_corrected_edges: int
    verdicts: dict[str, int]


class TopicBrief(BaseModel):
    topic_id: str
    label: UntrustedText
    claim_count: int
    has_contradiction: bool


class ContradictionHighlight(BaseModel):
    topic_id: str
    label: UntrustedText
    claim_count: int = Field(description="claims of the topic with at least one REFUTES edge")


class EvidenceSummary(MarksUntrusted):
    answer_line: str = Field(
        description="the answer to the question in one line, e.g. 'Answer: supported "
        "(0.78 ± 0.09) — 6 papers for, 1 against, 23 judged'"
    )
    answer: AnswerView | None = Field(
        None,
        description="the hypothesis judged and its papers, or (open question) "
        "the most relevant claims; human feedback applied",
    )
    task_id: str
    query: UntrustedText
    status: str
    statistics: Statistics
    top_topics: list[TopicBrief]
    contradiction_highlights: list[ContradictionHighlight]
    primary_source_ratio: float | None = Field(
        description="share of the task's pages that are scholarly records (kind abstract or paper) rather "
        "than web pages; null when the task has no pages"
    )
    blocked_domains: list[UntrustedText] = Field(
        default_factory=list, description="task domains a user rule blocks"
    )
    graph_note: str | None = Field(
        None,
        description="set when the graph shown is not the latest run's: "
        "which run's graph it is and what to do",
    )


class TopicList(MarksUntrusted):
    task_id: str
    topics: list[Topic]
    total: int
    next_cursor: str | None = None


class TopicClaims(MarksUntrusted):
    task_id: str
    topic_id: str
    topic: UntrustedText
    claims: list[ClaimBrief]
    total: int
    next_cursor: str | None = None


class Source(BaseModel):
    page_id: str | None
    paper_id: str | None = Field(
        None, description="the paper behind the page (get_paper); null for a web page"
    )
    url: UntrustedText | None
    domain: UntrustedText | None
    title: UntrustedText | None
    year: int | None = None
    doi: UntrustedText | None = None
    pmid: UntrustedText | None = Field(None, description="the paper's PubMed id, where known")
    kind: str | None
    trust_level: str | None


class EvidenceItem(BaseModel):
    edge_id: str
    fragment_id: str
    text: UntrustedText
    truncated: bool
    nli_confidence: float = Field(description="calibrated probability of the edge's relation")
    probabilities: dict[str, float] | None = Field(
        None,
        description="calibrated p_supports / p_refutes / p_neutral of the edge (a weak SUPPORTS has a high p_neutral)",
    )
    model_relation: str | None = Field(None, description="the model's label, given when a human changed it")
    reason: UntrustedText | None = Field(
        None,
        description="why the judge said what it said, in one line (for an effect "
        "claim: the directions the passage and the claim state, the figures)",
    )
    study_design: str | None = Field(
        None,
        description="the design of the passage's paper: meta_analysis | rct | cohort | registry | case_control | "
        "cross_sectional | animal_cell | human_cells | review | other (none stated); null on an edge judged "
        "before designs were read",
    )
    design_cue: UntrustedText | None = Field(
        None, description="the words that decided study_design, as written"
    )
    sample_size: int | None = Field(None, description="people or animals the study enrolled, where stated")
    effect_figures: UntrustedText | None = Field(
        None, description="the effect figures the passage states, as written ('RR 0.70, 95% CI 0.58-0.86')"
    )
    facts: UntrustedText | None = Field(
        None,
        description="design, size and figures in one line, as a scientist reads "
        "them: 'RCT, n = 861, HR 0.63 (0.35–1.13)'",
    )
    human_reviewed: bool
    human_corrected: bool
    source: Source


class ClaimScoreView(ClaimScore):
    method: str
    recomputed: bool = Field(description="true when human feedback changed the model's score")


class EvidenceLists(BaseModel):
    supports: list[EvidenceItem]
    refutes: list[EvidenceItem]
    neutral: list[EvidenceItem]


class ClaimEvidence(MarksUntrusted):
    task_id: str
    claim_id: str
    claim_text: UntrustedText
    truncated: bool
    origin: str
    rejected: bool
    score: ClaimScoreView | None
    evidence: EvidenceLists
    totals: dict[str, int] = Field(description="edges per relation in the effective graph")
    hidden_blocked: int = Field(0, description="edges left out because their domain is blocked")
    next_cursor: str | None = None


class MaterialEdge(BaseModel):
    edge_id: str
    fragment_id: str
    relation: str
    nli_confidence: float
    domain: UntrustedText | None
    human_corrected: bool


class MaterialClaim(BaseModel):
    claim_id: str
    text: UntrustedText
    truncated: bool
    origin: str
    topic: UntrustedText | None
    confidence: float
    uncertainty: float
    controversy: float
    verdict: str
    rejected: bool
    edges: list[MaterialEdge]


class Materials(MarksUntrusted):
    task_id: str
    format: Literal["summary", "full"]
    summary: EvidenceSummary | None = None
    claims: list[MaterialClaim] | None = None
    total: int | None = None
    next_cursor: str | None = None


class TaskBrief(BaseModel):
    id: str
    query: UntrustedText
    truncated: bool
    status: str
    created_at: datetime
    updated_at: datetime | None = None


class TaskList(MarksUntrusted):
    tasks: list[TaskBrief]
    total: int
    next_cursor: str | None = None


# -- task status -----------------------------------------------------------------------------------


class BlockedDomain(BaseModel):
    """A domain whose evidence the task leaves out: blocked by a user rule or by source verification,
    and how to restore it."""

    domain: UntrustedText
    blocked_at: datetime | None
    reason: UntrustedText
    cause_ids: list[str]
    original_trust_level: str | None
    can_restore: bool
    restore_via: str


class RunState(BaseModel):
    run_id: str
    status: str
    started_at: datetime | None = None
    ended_at: datetime | None = None


class AssetState(BaseModel):
    asset: str
    state: str = Field(description="in the latest run: pending, running, done, failed, skipped or not_run")
    last_materialized_at: datetime | None = None


class FeedbackCounts(BaseModel):
    events: int
    reviewed_edges: int
    corrected_edges: int
    rejected_claims: int


class TaskStatus(MarksUntrusted):
    task_id: str
    query: UntrustedText
    status: str
    error: UntrustedText | None
    created_at: datetime | None
    updated_at: datetime | None
    latest_run: RunState | None
    assets: list[AssetState]
    row_counts: dict[str, int]
    blocked_domains: list[BlockedDomain]
    active_nli_version: str | None = Field(
        description="the NLI model version that judges new edges (lyra models list)"
    )
    edges_nli_version: str | None = Field(
        description="NLI model version on the task's edges (the most common one); "
        "differs from the active one until the task is re-scored"
    )
    graph_run_id: str | None = Field(
        description="the run whose graph readers see (the last one that published)"
    )
    graph_note: str | None = Field(
        description="set when the graph shown is not the latest run's: which run's graph it is and what to do"
    )
    feedback: FeedbackCounts
