"""Bounded read queries over the effective evidence graph, for agents and the CLI.

Every answer is small (target ≤ 8 KB of JSON): lists are paged with ``limit`` and an opaque
``cursor``, pages are also cut to a byte budget, and long texts are clipped with a ``truncated``
flag. What these functions return is the *effective* graph: the model's output of the task's
latest run with the human overlay applied (corrected edge labels, rejected claims hidden unless
asked for, evidence from blocked domains left out, claim scores recomputed from the effective
edges). Nothing here writes; queries are Lyra's own SQL with parameters only, and each call
reads through one short-lived connection.

Where things are: :mod:`.summary` and :mod:`.claims` (the tools), :mod:`.status` (a task's run and
versions); below them, shared with the report, the exports and the ``task_report`` asset,
:mod:`lyra_resources.store.reviewed_graph` holds the SQL over the model's rows and the overlay
(human feedback applied), and :mod:`lyra_tools.mcp` the answers' models and paging (limits,
cursors, byte budget).
"""

from lyra_core.clipping import clip
from lyra_resources.store.reviewed_graph.answer import effective_answer
from lyra_resources.store.reviewed_graph.overlay import Overlay, load_claims, load_overlay, rescore
from lyra_resources.store.reviewed_graph.queries import claim_edges, require_task
from lyra_resources.store.reviewed_graph.records import ExploreError
from lyra_tools.explore.claims import claim_evidence, claims_by_topic, source_of
from lyra_tools.explore.contradictions import find_contradictions
from lyra_tools.explore.status import dagster_state, default_nli_version, task_status
from lyra_tools.explore.summary import (
    evidence_summary,
    list_claim_topics,
    list_tasks,
    materials,
)
from lyra_tools.mcp.models import (
    AssetState,
    BlockedDomain,
    ClaimBrief,
    ClaimEvidence,
    ClaimScoreView,
    ContradictionHighlight,
    EvidenceItem,
    EvidenceLists,
    EvidenceSummary,
    FeedbackCounts,
    MaterialClaim,
    MaterialEdge,
    Materials,
    RunState,
    Source,
    Statistics,
    TaskBrief,
    TaskList,
    TaskStatus,
    Topic,
    TopicBrief,
    TopicClaims,
    TopicList,
)
from lyra_tools.mcp.paging import (
    ANSWER_BUDGET,
    MAX_LIMIT,
    check_limit,
    decode_cursor,
    encode_cursor,
    fit_page,
)

__all__ = [
    "ANSWER_BUDGET",
    "MAX_LIMIT",
    "AssetState",
    "BlockedDomain",
    "ClaimBrief",
    "ClaimEvidence",
    "ClaimScoreView",
    "ContradictionHighlight",
    "EvidenceItem",
    "EvidenceLists",
    "EvidenceSummary",
    "ExploreError",
    "FeedbackCounts",
    "MaterialClaim",
    "MaterialEdge",
    "Materials",
    "Overlay",
    "RunState",
    "Source",
    "Statistics",
    "TaskBrief",
    "TaskList",
    "TaskStatus",
    "Topic",
    "TopicBrief",
    "TopicClaims",
    "TopicList",
    "check_limit",
    "claim_edges",
    "claim_evidence",
    "claims_by_topic",
    "clip",
    "dagster_state",
    "decode_cursor",
    "default_nli_version",
    "effective_answer",
    "encode_cursor",
    "evidence_summary",
    "find_contradictions",
    "fit_page",
    "list_claim_topics",
    "list_tasks",
    "load_claims",
    "load_overlay",
    "materials",
    "require_task",
    "rescore",
    "source_of",
    "task_status",
]
