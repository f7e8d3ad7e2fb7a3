"""Bounded read queries over the effective evidence graph, for agents (seed 003).

Every answer is small (target ≤ 8 KB of JSON): lists are paged with ``limit`` and an opaque
``cursor``, pages are also cut to a byte budget, and long texts are clipped with a ``truncated``
flag. What these functions return is the *effective* graph: the model's output of the task's
latest run with the human overlay applied (corrected edge labels, rejected claims hidden unless
asked for, evidence from blocked domains left out, claim scores recomputed from the effective
edges). Nothing here writes; queries are Lyra's own SQL with parameters only, and each call
reads through one short-lived connection.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypeVar

import duckdb
from pydantic import BaseModel, Field

from lyra_core.answer import AnswerView
from lyra_core.cells import cell_list
from lyra_core.hypothesis import HYPOTHESIS
from lyra_core.feedback import (
    DomainRule,
    blocked_domains,
    effective_edges,
    effective_scores,
    rule_for,
    touched_claims,
)
from lyra_core.scoring import NEUTRAL, REFUTES, SUPPORTS, ClaimScore
from lyra_resources.generations import graph_note, published_generation
from lyra_resources.settings import settings
from lyra_resources.store import LyraStore
from lyra_tools.task_papers import add_paper_fields

ANSWER_BUDGET = 7_000  # bytes of JSON for the listed items; the envelope stays well under 1 KB
PRIMARY_KINDS = ("abstract", "paper")  # scholarly records, as opposed to web pages
MAX_LIMIT = 50


class ExploreError(ValueError):
    """A request the exploration tools cannot answer (unknown id, bad cursor); says why."""


# -- answer models ---------------------------------------------------------------------------------

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
    label: str
    claim_count: int
    has_contradiction: bool


class ContradictionHighlight(BaseModel):
    topic_id: str
    label: str
    claim_count: int = Field(description="claims of the topic with at least one REFUTES edge")


class EvidenceSummary(BaseModel):
    answer_line: str = Field(description="the answer to the question in one line, e.g. 'Answer: supported "
                             "(0.78 ± 0.09) — 6 papers for, 1 against, 23 judged'")
    answer: AnswerView | None = Field(None, description="the hypothesis judged and its papers, or (open question) "
                                      "the most relevant claims; human feedback applied")
    task_id: str
    query: str
    status: str
    statistics: Statistics
    top_topics: list[TopicBrief]
    contradiction_highlights: list[ContradictionHighlight]
    primary_source_ratio: float | None = Field(
        description="share of the task's pages that are scholarly records (kind abstract or paper) rather "
                    "than web pages; null when the task has no pages")
    blocked_domains: list[str] = Field(default_factory=list, description="task domains a user rule blocks")
    graph_note: str | None = Field(None, description="set when the graph shown is not the latest run's: "
                                   "which run's graph it is and what to do")


class Topic(BaseModel):
    topic_id: str
    label: str
    claim_count: int
    has_contradiction: bool
    terms: list[str]


class TopicList(BaseModel):
    task_id: str
    topics: list[Topic]
    total: int
    next_cursor: str | None = None


class ClaimBrief(BaseModel):
    claim_id: str
    text: str
    truncated: bool
    origin: str
    evidence_count: int
    supports: int
    refutes: int
    confidence: float
    uncertainty: float = Field(0.0, description="standard deviation of the confidence")
    verdict: str
    rejected: bool = False


class TopicClaims(BaseModel):
    task_id: str
    topic_id: str
    topic: str
    claims: list[ClaimBrief]
    total: int
    next_cursor: str | None = None


class Source(BaseModel):
    page_id: str | None
    paper_id: str | None = Field(None, description="the paper behind the page (get_paper); null for a web page")
    url: str | None
    domain: str | None
    title: str | None
    year: int | None = None
    doi: str | None = None
    kind: str | None
    trust_level: str | None


class EvidenceItem(BaseModel):
    edge_id: str
    fragment_id: str
    text: str
    truncated: bool
    nli_confidence: float = Field(description="calibrated probability of the edge's relation")
    probabilities: dict[str, float] | None = Field(
        None, description="calibrated p_supports / p_refutes / p_neutral of the edge (a weak SUPPORTS has a high p_neutral)")
    model_relation: str | None = Field(None, description="the model's label, given when a human changed it")
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


class ClaimEvidence(BaseModel):
    task_id: str
    claim_id: str
    claim_text: str
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
    domain: str | None
    human_corrected: bool


class MaterialClaim(BaseModel):
    claim_id: str
    text: str
    truncated: bool
    origin: str
    topic: str | None
    confidence: float
    uncertainty: float
    controversy: float
    verdict: str
    rejected: bool
    edges: list[MaterialEdge]


class Materials(BaseModel):
    task_id: str
    format: Literal["summary", "full"]
    summary: EvidenceSummary | None = None
    claims: list[MaterialClaim] | None = None
    total: int | None = None
    next_cursor: str | None = None


class TaskBrief(BaseModel):
    id: str
    query: str
    truncated: bool
    status: str
    created_at: datetime
    updated_at: datetime | None = None


class TaskList(BaseModel):
    tasks: list[TaskBrief]
    total: int
    next_cursor: str | None = None


# -- small helpers ---------------------------------------------------------------------------------

def clip(text: Any, limit: int) -> tuple[str, bool]:
    """``text`` cut at a word to at most ``limit`` characters (an ellipsis marks the cut)."""
    text = text if isinstance(text, str) else ""
    if len(text) <= limit:
        return text, False
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip() + "…", True


def _none(value: Any) -> Any:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def check_limit(limit: int, maximum: int = MAX_LIMIT) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= maximum:
        raise ExploreError(f"limit must be an integer from 1 to {maximum} (got {limit!r})")
    return limit


def _query_key(kind: str, *parts: Any) -> str:
    return hashlib.sha1(json.dumps([kind, *parts], default=str).encode()).hexdigest()[:10]


def encode_cursor(key: str, offsets: dict[str, int]) -> str:
    raw = json.dumps({"k": key, "o": offsets}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None, key: str, names: Sequence[str] = ("i",)) -> dict[str, int]:
    """Offsets from a cursor this query handed out; a cursor of another query is refused."""
    if not cursor:
        return {n: 0 for n in names}
    try:
        if len(cursor) > 200:
            raise ValueError
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        offsets = {n: int(data["o"][n]) for n in names}
        if data["k"] != key or any(v < 0 for v in offsets.values()):
            raise ValueError
    except (ValueError, KeyError, TypeError):
        raise ExploreError("cursor does not belong to this query: pass the next_cursor of the previous "
                           "answer unchanged, with the same arguments") from None
    return offsets


T = TypeVar("T", bound=BaseModel)


def fit_page(items: Sequence[T], limit: int, budget: int = ANSWER_BUDGET) -> list[T]:
    """The first ``limit`` items, fewer if their JSON would pass ``budget`` bytes (at least one)."""
    out: list[T] = []
    used = 0
    for item in items[:limit]:
        size = len(item.model_dump_json()) + 1
        if out and used + size > budget:
            break
        out.append(item)
        used += size
    return out


def _page(items: list[T], offset: int, limit: int, key: str, budget: int = ANSWER_BUDGET) -> tuple[list[T], str | None]:
    page = fit_page(items[offset:], limit, budget)
    end = offset + len(page)
    return page, (encode_cursor(key, {"i": end}) if end < len(items) else None)


# -- the effective graph of one task ---------------------------------------------------------------
# Tool answers must take milliseconds, so rows come back as plain dicts (no DataFrames), task-wide
# figures are SQL aggregates over the model's rows, and only the claims the overlay touches are
# rescored in Python from their effective edges. Id sets never travel as one LIST parameter
# (DuckDB then tests every row of the table against the list): short ones become ``IN (?, …)``,
# long ones are filtered in Python after a query on the task alone.

_SCORE_COLUMNS = ["alpha", "beta", "confidence", "uncertainty", "controversy", "verdict", "supporting_count",
                  "refuting_count", "neutral_count", "independent_sources", "evidence_count"]
_CLAIM_SQL = (
    "SELECT c.claim_id, c.task_id, c.text, c.origin, c.relevance, c.adoption_status, "
    + ", ".join(f"s.{c}" for c in _SCORE_COLUMNS)
    + ", s.method FROM claims c LEFT JOIN claim_scores s ON s.task_id = c.task_id AND s.claim_id = c.claim_id "
    "WHERE c.task_id = ? AND c.adoption_status = 'adopted'")
_EDGE_COLUMNS = ("e.edge_id, e.claim_id, e.fragment_id, e.relation, e.nli_confidence, e.page_id, "
                 "e.source_trust_level, e.target_trust_level, e.p_supports, e.p_refutes, e.p_neutral")
_MAX_IN = 100  # ids passed as IN (?, …); more are filtered in Python


def _rows(conn: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _in(column: str, ids: Sequence[str]) -> tuple[str, list[str], set[str] | None]:
    """SQL condition, its parameters, and the set to filter by in Python when ids are many."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return "FALSE", [], None
    if len(ids) <= _MAX_IN:
        return f"{column} IN ({', '.join('?' * len(ids))})", ids, None
    return "TRUE", [], set(ids)


@dataclass
class Overlay:
    """The human feedback in force on one task."""

    reviews: dict[str, str] = field(default_factory=dict)  # edge_id → correct relation
    rejected: set[str] = field(default_factory=set)  # claim ids
    rules: list[DomainRule] = field(default_factory=list)  # active domain rules (all tasks)
    blocked: dict[str, DomainRule] = field(default_factory=dict)  # task domain → blocking rule
    blocked_pages: set[str] = field(default_factory=set)
    touched: set[str] = field(default_factory=set)  # claims whose score the overlay changes
    reviewed_claims: dict[str, str] = field(default_factory=dict)  # reviewed edge → its claim

    @property
    def excluded(self) -> set[str]:
        """Claims whose stored model rows do not stand as they are: rejected or rescored."""
        return self.rejected | self.touched


def require_task(conn: duckdb.DuckDBPyConnection, task_id: str) -> dict[str, Any]:
    if not isinstance(task_id, str) or not task_id or len(task_id) > 100:
        raise ExploreError("task_id must be a task id string such as 'task_1a2b3c4d' (see list_tasks)")
    rows = _rows(conn, "SELECT id, query, status, created_at, updated_at, error FROM tasks WHERE id = ?", [task_id])
    if not rows:
        raise ExploreError(f"no task {task_id!r} (list_tasks shows the known tasks)")
    return rows[0]


def active_rules(conn: duckdb.DuckDBPyConnection) -> list[DomainRule]:
    return [DomainRule(**r) for r in _rows(
        conn, "SELECT id, domain_pattern, decision, coalesce(reason, '') AS reason, created_at "
              "FROM domain_override_rules WHERE is_active ORDER BY created_at, id")]


def load_overlay(conn: duckdb.DuckDBPyConnection, task_id: str) -> Overlay:
    """Reviews, rejections and domain rules in force on the task, and the claims they touch."""
    overlay = Overlay()
    for kind, key, value in conn.execute(
            "SELECT 0, edge_id, correct_relation FROM edge_reviews WHERE task_id = $1 "
            "UNION ALL SELECT 1, claim_id, NULL FROM claim_rejections WHERE task_id = $1 AND is_active "
            "UNION ALL (SELECT 2, id, NULL FROM domain_override_rules WHERE is_active LIMIT 1)", [task_id]).fetchall():
        if kind == 0:
            overlay.reviews[key] = value
        elif kind == 1:
            overlay.rejected.add(key)
        else:
            overlay.rules = active_rules(conn)
    if any(r.decision == "block" for r in overlay.rules):
        domains = [r[0] for r in conn.execute(
            "SELECT DISTINCT domain FROM pages WHERE task_id = ? AND domain IS NOT NULL", [task_id]).fetchall()]
        overlay.blocked = blocked_domains(domains, overlay.rules)
    edges: list[dict[str, Any]] = []
    if overlay.reviews:
        edges += _rows(conn, "SELECT e.edge_id, e.claim_id, e.relation, e.page_id FROM nli_edges e "
                             "JOIN edge_reviews r ON r.edge_id = e.edge_id WHERE e.task_id = ? AND r.task_id = ?",
                       [task_id, task_id])
    if overlay.blocked:
        cond, params, _ = _in("p.domain", sorted(overlay.blocked))
        pages = _rows(conn, f"SELECT p.page_id FROM pages p WHERE p.task_id = ? AND {cond}", [task_id, *params])
        overlay.blocked_pages = {r["page_id"] for r in pages}
        edges += _rows(conn, "SELECT e.edge_id, e.claim_id, e.relation, e.page_id FROM nli_edges e JOIN pages p "
                             f"ON p.task_id = e.task_id AND p.page_id = e.page_id WHERE e.task_id = ? AND {cond}",
                       [task_id, *params])
    overlay.touched = touched_claims(edges, overlay.reviews, overlay.blocked_pages)
    overlay.reviewed_claims = {e["edge_id"]: e["claim_id"] for e in edges if e["edge_id"] in overlay.reviews}
    return overlay


def claim_edges(conn: duckdb.DuckDBPyConnection, task_id: str, claim_ids: Sequence[str],
                with_sources: bool = False) -> list[dict[str, Any]]:
    """The model's edges of ``claim_ids`` with their page's domain; ``with_sources`` adds the
    page's url, title, kind and paper (its id, year and DOI) and the fragment's text."""
    cond, params, post = _in("e.claim_id", claim_ids)
    if cond == "FALSE":
        return []
    if with_sources:
        sql = (f"SELECT {_EDGE_COLUMNS}, p.domain, p.url, p.title, p.kind, p.paper_id, f.text FROM nli_edges e "
               "LEFT JOIN pages p ON p.task_id = e.task_id AND p.page_id = e.page_id "
               "LEFT JOIN fragments f ON f.task_id = e.task_id AND f.fragment_id = e.fragment_id ")
    else:
        sql = (f"SELECT {_EDGE_COLUMNS}, p.domain FROM nli_edges e "
               "LEFT JOIN pages p ON p.task_id = e.task_id AND p.page_id = e.page_id ")
    rows = _rows(conn, sql + f"WHERE e.task_id = ? AND {cond}", [task_id, *params])
    rows = rows if post is None else [r for r in rows if r["claim_id"] in post]
    if with_sources:
        add_paper_fields(conn, task_id, rows)
    return rows


def rescore(claims: list[dict[str, Any]], edges: list[dict[str, Any]], overlay: Overlay) -> None:
    """Replace, in place, the stored score of each claim the overlay touches (or that has none)
    by the score of its effective edges; ``edges`` must hold those claims' model edges."""
    todo = [c for c in claims if c["claim_id"] in overlay.touched or c.get("verdict") is None]
    if not todo:
        return
    effective = effective_edges(edges, overlay.reviews, overlay.blocked_pages)
    for method in {c.get("method") or "bayesian" for c in todo}:
        group = [c for c in todo if (c.get("method") or "bayesian") == method]
        scores = effective_scores(effective, [c["claim_id"] for c in group], use_bayesian=(method != "legacy"),
                                  rule=settings().evidence.scoring_rule())
        for claim in group:
            claim.update(scores[claim["claim_id"]].model_dump(), method=method, recomputed=True)


def load_claims(conn: duckdb.DuckDBPyConnection, task_id: str, overlay: Overlay,
                claim_ids: Sequence[str] | None = None, where: str = "", order: str = "") -> list[dict[str, Any]]:
    """Adopted claims with their effective scores and ``rejected`` flag: all of the task's, those
    of ``claim_ids``, or those matching ``where`` (Lyra's own SQL over aliases c and s; claims the
    overlay touches are fetched as well, since their stored score is not their score)."""
    sql, params, post = _CLAIM_SQL, [task_id], None
    if claim_ids is not None:
        cond, ids, post = _in("c.claim_id", claim_ids)
        sql, params = sql + f" AND {cond}", [*params, *ids]
    if where:
        cond, ids, extra = _in("c.claim_id", sorted(overlay.touched))
        sql, params = sql + f" AND ({where} OR {cond if extra is None else 'TRUE'})", [*params, *ids]
    claims = _rows(conn, sql + (f" ORDER BY {order}" if order else ""), params)
    if post is not None:
        claims = [c for c in claims if c["claim_id"] in post]
    for claim in claims:
        claim["rejected"] = claim["claim_id"] in overlay.rejected
        claim["recomputed"] = False
    need = [c["claim_id"] for c in claims if c["claim_id"] in overlay.touched or c.get("verdict") is None]
    rescore(claims, claim_edges(conn, task_id, need), overlay)
    for claim in claims:
        for col in ("supporting_count", "refuting_count", "neutral_count", "independent_sources", "evidence_count"):
            claim[col] = int(claim.get(col) or 0)
    return claims


def _hypothesis_ids(conn: duckdb.DuckDBPyConnection, task_id: str) -> set[str]:
    return {r[0] for r in conn.execute("SELECT claim_id FROM claims WHERE task_id = ? AND origin = ?",
                                       [task_id, HYPOTHESIS]).fetchall()}


def effective_answer(conn: duckdb.DuckDBPyConnection, task_id: str, overlay: Overlay) -> AnswerView | None:
    from lyra_tools.answer_view import read_answer  # it builds on this module's readers

    return read_answer(conn, task_id, overlay)


def _topics(conn: duckdb.DuckDBPyConnection, task_id: str) -> list[dict[str, Any]]:
    return _rows(conn, "SELECT topic_id, label, claim_ids, terms FROM claim_topics WHERE task_id = ? "
                       "ORDER BY claim_count DESC, topic_id", [task_id])


def _refuted(conn: duckdb.DuckDBPyConnection, task_id: str, overlay: Overlay) -> set[str]:
    """Claims in force with at least one effective REFUTES edge."""
    excluded = overlay.excluded
    stored = {r[0] for r in conn.execute(
        "SELECT claim_id FROM claim_scores WHERE task_id = ? AND refuting_count > 0", [task_id]).fetchall()}
    live_touched = sorted(overlay.touched - overlay.rejected)
    touched = {c["claim_id"] for c in load_claims(conn, task_id, overlay, live_touched)
               if c["refuting_count"] > 0} if live_touched else set()
    return (stored - excluded) | touched


def _effective_topics(topics: list[dict[str, Any]], rejected: set[str], refuted: set[str]) -> list[Topic]:
    """Topics counted over the claims in force: rejected claims leave, and a topic is
    contradicted when one of its claims has an effective REFUTES edge."""
    out = []
    for row in topics:
        members = [c for c in cell_list(row["claim_ids"]) if c not in rejected]
        out.append(Topic(topic_id=row["topic_id"], label=row["label"], claim_count=len(members),
                         has_contradiction=any(c in refuted for c in members), terms=cell_list(row["terms"])[:5]))
    return sorted(out, key=lambda t: (-t.claim_count, t.topic_id))


# -- the tools -------------------------------------------------------------------------------------

def evidence_summary(store: LyraStore, task_id: str) -> EvidenceSummary:
    """The whole task at a glance (about 1–2 KB): counts, top topics, where the contradictions are."""
    with store.connect() as conn:
        task = require_task(conn, task_id)
        overlay = load_overlay(conn, task_id)
        per_claim = conn.execute("SELECT claim_id, relation, count(*) FROM nli_edges WHERE task_id = ? GROUP BY 1, 2",
                                 [task_id]).fetchall()
        # claim_scores holds the adopted claims only: the claims asset scores nothing else
        scored = conn.execute("SELECT claim_id, verdict, refuting_count FROM claim_scores WHERE task_id = ?",
                              [task_id]).fetchall()
        adopted, not_adopted, pages, primary, fragments = conn.execute(
            "SELECT count(*) FILTER (WHERE adoption_status = 'adopted' AND origin <> 'hypothesis'), "
            "count(*) FILTER (WHERE adoption_status <> 'adopted'), "
            "(SELECT count(*) FROM pages WHERE task_id = $1), "
            f"(SELECT count(*) FROM pages WHERE task_id = $1 AND kind IN ({', '.join(repr(k) for k in PRIMARY_KINDS)})), "
            "(SELECT count(*) FROM fragments WHERE task_id = $1) FROM claims WHERE task_id = $1", [task_id]).fetchone()
        hypotheses = _hypothesis_ids(conn, task_id)  # the question's own claim: the answer, not a listed claim
        live_touched = sorted(overlay.touched - overlay.rejected - hypotheses)
        touched_edges = claim_edges(conn, task_id, live_touched)
        touched = load_claims(conn, task_id, overlay, live_touched) if live_touched else []
        topic_rows = _topics(conn, task_id)
        answer = effective_answer(conn, task_id, overlay)
    excluded = overlay.excluded | hypotheses
    relations: dict[str, int] = {}
    for claim_id, relation, count in per_claim:
        if claim_id not in excluded:
            relations[relation] = relations.get(relation, 0) + count
    effective = effective_edges(touched_edges, overlay.reviews, overlay.blocked_pages)
    for edge in effective:
        relations[edge["relation"]] = relations.get(edge["relation"], 0) + 1
    verdicts: dict[str, int] = {}
    refuted = set()
    for claim_id, verdict, refuting in scored:
        if claim_id not in excluded:
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
            if refuting:
                refuted.add(claim_id)
    for claim in touched:
        verdicts[claim["verdict"]] = verdicts.get(claim["verdict"], 0) + 1
        if claim["refuting_count"]:
            refuted.add(claim["claim_id"])
    adopted_ids = {c for c, *_ in scored} | {c["claim_id"] for c in touched}
    live_reviews = [e for e, c in overlay.reviewed_claims.items() if c not in overlay.rejected]
    topics = _effective_topics(topic_rows, overlay.rejected, refuted)
    highlights = []
    for row in topic_rows:
        count = sum(c in refuted for c in cell_list(row["claim_ids"]))
        if count:
            highlights.append(ContradictionHighlight(topic_id=row["topic_id"], label=row["label"], claim_count=count))
    highlights.sort(key=lambda h: (-h.claim_count, h.topic_id))
    return EvidenceSummary(
        answer_line=answer.line if answer else "Answer: none yet — the task has not been answered (run it)",
        answer=answer, task_id=task_id, query=clip(task["query"], 300)[0], status=task["status"],
        graph_note=graph_note(store, task_id) if task["status"] != "completed" else None,
        statistics=Statistics(
            total_claims=int(adopted) - len(overlay.rejected & adopted_ids), rejected_claims=len(overlay.rejected),
            not_adopted_claims=int(not_adopted), total_pages=int(pages), total_fragments=int(fragments),
            supports_edges=relations.get(SUPPORTS, 0), refutes_edges=relations.get(REFUTES, 0),
            neutral_edges=relations.get(NEUTRAL, 0), human_reviewed_edges=len(live_reviews),
            human_corrected_edges=sum(e["human_corrected"] for e in effective),
            verdicts={str(k): v for k, v in sorted(verdicts.items(), key=lambda kv: -kv[1]) if v},
        ),
        top_topics=[TopicBrief(**t.model_dump(exclude={"terms"})) for t in topics[:8]],
        contradiction_highlights=highlights[:5],
        primary_source_ratio=round(primary / pages, 3) if pages else None,
        blocked_domains=sorted(overlay.blocked)[:20],
    )


def list_claim_topics(store: LyraStore, task_id: str, limit: int = 50, cursor: str | None = None) -> TopicList:
    """The task's topics, largest first, counted over the claims in force."""
    check_limit(limit)
    key = _query_key("topics", task_id)
    offset = decode_cursor(cursor, key)["i"]
    with store.connect() as conn:
        require_task(conn, task_id)
        overlay = load_overlay(conn, task_id)
        topics = _effective_topics(_topics(conn, task_id), overlay.rejected, _refuted(conn, task_id, overlay))
    page, next_cursor = _page(topics, offset, limit, key)
    return TopicList(task_id=task_id, topics=page, total=len(topics), next_cursor=next_cursor)


def _find_topic(conn: duckdb.DuckDBPyConnection, task_id: str, topic: str) -> dict[str, Any]:
    wanted = (topic or "").strip()
    rows = _rows(conn, "SELECT topic_id, label, claim_ids FROM claim_topics WHERE task_id = ? "
                       "AND (topic_id = ? OR lower(label) = lower(?)) ORDER BY topic_id <> ?, topic_id",
                 [task_id, wanted, wanted, wanted])
    if not rows:
        raise ExploreError(f"no topic {wanted[:80]!r} in this task: pass a topic_id or label from list_claim_topics")
    return rows[0]


def _brief(row: dict[str, Any]) -> ClaimBrief:
    text, truncated = clip(row["text"], 300)
    return ClaimBrief(claim_id=row["claim_id"], text=text, truncated=truncated, origin=row["origin"],
                      evidence_count=row["evidence_count"], supports=row["supporting_count"],
                      refutes=row["refuting_count"], confidence=float(_none(row["confidence"]) or 0.5),
                      uncertainty=round(float(_none(row["uncertainty"]) or 0.0), 4),
                      verdict=_none(row["verdict"]) or "unverified", rejected=row["rejected"])


_BY_RELEVANCE = "c.relevance DESC NULLS LAST, c.claim_id"


def claims_by_topic(store: LyraStore, task_id: str, topic: str, limit: int = 20, cursor: str | None = None,
                    include_rejected: bool = False) -> TopicClaims:
    """One topic's claims, most relevant to the question first, with their effective scores."""
    check_limit(limit)
    if not isinstance(topic, str) or not topic.strip() or len(topic) > 300:
        raise ExploreError("topic must be a topic_id or label from list_claim_topics (at most 300 characters)")
    key = _query_key("claims_by_topic", task_id, topic, include_rejected)
    offset = decode_cursor(cursor, key)["i"]
    with store.connect() as conn:
        require_task(conn, task_id)
        row = _find_topic(conn, task_id, topic)
        overlay = load_overlay(conn, task_id)
        claims = load_claims(conn, task_id, overlay, cell_list(row["claim_ids"]), order=_BY_RELEVANCE)
    if not include_rejected:
        claims = [c for c in claims if not c["rejected"]]
    page = fit_page([_brief(c) for c in claims[offset: offset + limit]], limit)
    end = offset + len(page)
    return TopicClaims(task_id=task_id, topic_id=row["topic_id"], topic=row["label"], claims=page, total=len(claims),
                       next_cursor=encode_cursor(key, {"i": end}) if end < len(claims) else None)


def _score_view(row: dict[str, Any]) -> ClaimScoreView | None:
    if _none(row.get("verdict")) is None:
        return None
    return ClaimScoreView(**{c: row[c] for c in _SCORE_COLUMNS}, method=_none(row.get("method")) or "bayesian",
                          recomputed=row["recomputed"])


_SIDES = {"supports": SUPPORTS, "refutes": REFUTES, "neutral": NEUTRAL}


def _probabilities(row: dict[str, Any]) -> dict[str, float] | None:
    values = {k: _none(row.get(k)) for k in ("p_supports", "p_refutes", "p_neutral")}
    return None if any(v is None for v in values.values()) else {k: round(float(v), 3) for k, v in values.items()}


def _evidence_item(row: dict[str, Any]) -> EvidenceItem:
    text, truncated = clip(row["text"], 280)
    return EvidenceItem(
        edge_id=row["edge_id"], fragment_id=row["fragment_id"], text=text, truncated=truncated,
        nli_confidence=round(float(row["nli_confidence"]), 4),
        probabilities=_probabilities(row),
        model_relation=row["model_relation"] if row["human_corrected"] else None,
        human_reviewed=row["human_reviewed"], human_corrected=row["human_corrected"],
        source=source_of(row))


def source_of(row: dict[str, Any], title_chars: int = 160) -> Source:
    """The source of an edge read by ``claim_edges(..., with_sources=True)``."""
    return Source(page_id=row["page_id"], paper_id=row.get("paper_id"), url=row["url"], domain=row["domain"],
                  title=clip(row["title"], title_chars)[0] or None, year=_none(row.get("year")),
                  doi=row.get("doi"), kind=row["kind"], trust_level=row["source_trust_level"])


def claim_evidence(store: LyraStore, claim_id: str, task_id: str | None = None, limit: int = 5,
                   cursor: str | None = None) -> ClaimEvidence:
    """A claim's supporting, refuting and neutral fragments (``limit`` per side, strongest first)
    with their sources, and the claim's effective Bayesian score."""
    check_limit(limit, 20)
    if not isinstance(claim_id, str) or not claim_id or len(claim_id) > 100:
        raise ExploreError("claim_id must be a claim id string such as 'c_0123456789abcdef'")
    with store.connect() as conn:
        if task_id is None:
            found = conn.execute("SELECT task_id FROM claims WHERE claim_id = ? LIMIT 1", [claim_id]).fetchone()
            if found is None:
                raise ExploreError(f"no claim {claim_id!r} in any task")
            task_id = found[0]
        # the claim and its stored score in one query; the task is looked up only to explain a miss
        scored = _rows(conn, _CLAIM_SQL.replace("AND c.adoption_status = 'adopted'", "AND c.claim_id = ?"),
                       [task_id, claim_id])
        if not scored:
            require_task(conn, task_id)
            raise ExploreError(f"no claim {claim_id!r} in task {task_id!r}")
        task_id = scored[0]["task_id"]
        claim = (scored[0]["text"], scored[0]["origin"])
        overlay = load_overlay(conn, task_id)
        edges = claim_edges(conn, task_id, [claim_id], with_sources=True)
    if scored[0]["adoption_status"] != "adopted":
        scored = []  # extracted but never judged: no score
    key = _query_key("claim_evidence", task_id, claim_id, limit)
    offsets = decode_cursor(cursor, key, list(_SIDES))
    for row in scored:
        row["rejected"], row["recomputed"] = claim_id in overlay.rejected, False
    rescore(scored, edges, overlay)
    eff = sorted(effective_edges(edges, overlay.reviews, overlay.blocked_pages),
                 key=lambda e: (-e["nli_confidence"], e["edge_id"]))
    lists: dict[str, list[EvidenceItem]] = {}
    remaining = ANSWER_BUDGET - 1200  # the claim, its score and the envelope
    next_offsets, more = {}, False
    for name, relation in _SIDES.items():
        side = [e for e in eff if e["relation"] == relation]
        start = offsets[name]
        page = fit_page([_evidence_item(r) for r in side[start: start + limit]], limit, max(remaining, 1))
        remaining -= sum(len(i.model_dump_json()) + 1 for i in page)
        lists[name] = page
        next_offsets[name] = start + len(page)
        more |= next_offsets[name] < len(side)
    text, truncated = clip(claim[0], 500)
    return ClaimEvidence(
        task_id=task_id, claim_id=claim_id, claim_text=text, truncated=truncated, origin=claim[1],
        rejected=claim_id in overlay.rejected, score=_score_view(scored[0]) if scored else None,
        evidence=EvidenceLists(**lists), totals={n: sum(e["relation"] == r for e in eff) for n, r in _SIDES.items()},
        hidden_blocked=len(edges) - len(eff), next_cursor=encode_cursor(key, next_offsets) if more else None,
    )


def _topic_of(conn: duckdb.DuckDBPyConnection, task_id: str, claim_ids: Sequence[str]) -> dict[str, str]:
    wanted = set(claim_ids)
    return {c: label for label, ids in conn.execute("SELECT label, claim_ids FROM claim_topics WHERE task_id = ?",
                                                    [task_id]).fetchall() for c in cell_list(ids) if c in wanted}


def find_contradictions(store: LyraStore, task_id: str, limit: int = 10, cursor: str | None = None,
                        include_rejected: bool = False) -> Any:
    """Claims with REFUTES evidence and both sides' sources: see :mod:`lyra_tools.contradictions`."""
    from lyra_tools.contradictions import find_contradictions as find  # it builds on this module's readers

    return find(store, task_id, limit, cursor, include_rejected)


def materials(store: LyraStore, task_id: str, format: str = "summary", limit: int = 10,
              cursor: str | None = None, include_rejected: bool = False) -> Materials:
    """``summary``: the evidence summary. ``full``: every claim with its effective score and
    edges (ids, relation, confidence, domain), a page at a time; fragment texts come from
    get_claim_evidence."""
    if format not in ("summary", "full"):
        raise ExploreError(f"format must be 'summary' or 'full' (got {str(format)[:40]!r})")
    if format == "summary":
        return Materials(task_id=task_id, format="summary", summary=evidence_summary(store, task_id))
    check_limit(limit, 25)
    key = _query_key("materials", task_id, include_rejected)
    offset = decode_cursor(cursor, key)["i"]
    with store.connect() as conn:
        require_task(conn, task_id)
        overlay = load_overlay(conn, task_id)
        ids = [r[0] for r in conn.execute(
            "SELECT c.claim_id FROM claims c WHERE c.task_id = ? AND c.adoption_status = 'adopted' "
            f"AND c.origin <> 'hypothesis' ORDER BY {_BY_RELEVANCE}", [task_id]).fetchall()
               if include_rejected or r[0] not in overlay.rejected]
        chosen = ids[offset: offset + limit]
        claims = load_claims(conn, task_id, overlay, chosen, order=_BY_RELEVANCE)
        edges = effective_edges(claim_edges(conn, task_id, chosen), overlay.reviews, overlay.blocked_pages)
        topic_of = _topic_of(conn, task_id, chosen)
    order = {SUPPORTS: 0, REFUTES: 1, NEUTRAL: 2}
    edges.sort(key=lambda e: (order.get(e["relation"], 3), -e["nli_confidence"], e["edge_id"]))
    items = []
    for row in claims:
        text, truncated = clip(row["text"], 300)
        items.append(MaterialClaim(
            claim_id=row["claim_id"], text=text, truncated=truncated, origin=row["origin"],
            topic=topic_of.get(row["claim_id"]), confidence=float(_none(row["confidence"]) or 0.5),
            uncertainty=float(_none(row["uncertainty"]) or 0.0), controversy=float(_none(row["controversy"]) or 0.0),
            verdict=_none(row["verdict"]) or "unverified", rejected=row["rejected"],
            edges=[MaterialEdge(edge_id=e["edge_id"], fragment_id=e["fragment_id"], relation=e["relation"],
                                nli_confidence=round(float(e["nli_confidence"]), 4), domain=e["domain"],
                                human_corrected=e["human_corrected"])
                   for e in edges if e["claim_id"] == row["claim_id"]]))
    page = fit_page(items, limit)
    end = offset + len(page)
    return Materials(task_id=task_id, format="full", claims=page, total=len(ids),
                     next_cursor=encode_cursor(key, {"i": end}) if end < len(ids) else None)


def list_tasks(store: LyraStore, limit: int = 20, cursor: str | None = None) -> TaskList:
    """Every task, oldest first, with its status."""
    check_limit(limit)
    key = _query_key("tasks")
    offset = decode_cursor(cursor, key)["i"]
    with store.connect() as conn:
        total = conn.execute("SELECT count(*) FROM tasks").fetchone()[0]
        rows = _rows(conn, "SELECT id, query, status, created_at, updated_at FROM tasks "
                           "ORDER BY created_at, id LIMIT ? OFFSET ?", [limit, offset])
    items = []
    for t in rows:
        query, truncated = clip(t["query"], 200)
        items.append(TaskBrief(id=t["id"], query=query, truncated=truncated, status=t["status"],
                               created_at=t["created_at"], updated_at=t["updated_at"]))
    page = fit_page(items, limit)
    end = offset + len(page)
    return TaskList(tasks=page, total=total, next_cursor=encode_cursor(key, {"i": end}) if end < total else None)


# -- task status -----------------------------------------------------------------------------------

class BlockedDomain(BaseModel):
    """Seed 002's blocked-domain entry. Today only user rules block; the domain policy will add its own."""

    domain: str
    blocked_at: datetime | None
    reason: str
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


class TaskStatus(BaseModel):
    task_id: str
    query: str
    status: str
    error: str | None
    created_at: datetime | None
    updated_at: datetime | None
    latest_run: RunState | None
    assets: list[AssetState]
    row_counts: dict[str, int]
    blocked_domains: list[BlockedDomain]
    active_nli_version: str | None = Field(description="the NLI model version that judges new edges (lyra models list)")
    edges_nli_version: str | None = Field(description="NLI model version on the task's edges (the most common one); "
                                          "differs from the active one until the task is re-scored")
    graph_run_id: str | None = Field(description="the run whose graph readers see (the last one that published)")
    graph_note: str | None = Field(description="set when the graph shown is not the latest run's: which run's "
                                   "graph it is and what to do")
    feedback: FeedbackCounts


def _ts(value: float | None) -> datetime | None:
    return datetime.fromtimestamp(value) if value else None


def dagster_state(store: LyraStore, task_id: str, instance: Any = None) -> tuple[RunState | None, list[AssetState]]:
    """Latest run of the task's partition and each asset's state in it, from the Dagster instance
    of the store's home (or the open ``instance`` given, which a long-lived server keeps); the task
    row takes the run's outcome first if its run ended unseen (a killed process)."""
    from lyra_tools import runner  # imports the asset graph: only when status is asked for

    if instance is None:
        with runner.open_instance(store.layout.root) as opened:
            return _dagster_state(store, opened, task_id)
    return _dagster_state(store, instance, task_id)


def _dagster_state(store: LyraStore, instance: Any, task_id: str) -> tuple[RunState | None, list[AssetState]]:
    from dagster import AssetKey, AssetRecordsFilter, DagsterEventType

    from lyra_tools import runner

    types = {DagsterEventType.STEP_START: "running", DagsterEventType.STEP_SUCCESS: "done",
             DagsterEventType.STEP_FAILURE: "failed", DagsterEventType.STEP_SKIPPED: "skipped"}
    names = runner.asset_names()
    runner.sync_task_status(store, instance, task_id)  # a run whose process died reads failed
    records = runner.task_runs(instance, task_id, limit=1)
    run_state, steps, active = None, {}, False
    if records:
        record = records[0]
        run = record.dagster_run
        run_state = RunState(run_id=run.run_id, status=run.status.value, started_at=_ts(record.start_time),
                             ended_at=_ts(record.end_time))
        events = instance.get_records_for_run(run.run_id, of_type=set(types)).records
        for ev in events:
            event = ev.event_log_entry.dagster_event
            if event is not None and event.step_key:
                steps[event.step_key] = types.get(event.event_type, steps.get(event.step_key))
        active = run.status in runner.ACTIVE_STATUSES
    assets = []
    for name in names:
        found = instance.fetch_materializations(
            AssetRecordsFilter(asset_key=AssetKey.from_user_string(name), asset_partitions=[task_id]), limit=1)
        last = _ts(found.records[0].timestamp) if found.records else None
        state = steps.get(name) or ("pending" if run_state and active else "not_run")
        assets.append(AssetState(asset=name, state=state, last_materialized_at=last))
    return run_state, assets


def default_nli_version() -> str:
    """The shipped (or configured) base model's version: active until an adapter is."""
    from lyra_resources.models import base_version, configured_nli_path

    return base_version(configured_nli_path())


def task_status(store: LyraStore, task_id: str, with_dagster: bool = True, instance: Any = None) -> TaskStatus:
    """Status, run state per asset, row counts, blocked domains and the NLI version of a task."""
    if with_dagster:
        with store.connect() as conn:
            require_task(conn, task_id)  # its message, before Dagster is asked about the task
    run_state, assets = dagster_state(store, task_id, instance) if with_dagster else (None, [])
    with store.connect() as conn:
        task = require_task(conn, task_id)
        overlay = load_overlay(conn, task_id)
        version = conn.execute("SELECT model_version FROM nli_edges WHERE task_id = ? AND model_version IS NOT NULL "
                               "GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1", [task_id]).fetchone()
        active = conn.execute("SELECT version FROM nli_model_versions WHERE status = 'active' "
                              "ORDER BY activated_at DESC LIMIT 1").fetchone()
        events, reviewed, corrected = conn.execute(
            "SELECT (SELECT count(*) FROM feedback_events WHERE task_id = $1), "
            "(SELECT count(*) FROM edge_reviews WHERE task_id = $1), "
            "(SELECT count(*) FROM edge_reviews WHERE task_id = $1 AND human_corrected)", [task_id]).fetchone()
        cond, domains, _ = _in("p.domain", sorted(overlay.blocked))
        trust = dict(conn.execute(
            "SELECT p.domain, any_value(e.source_trust_level) FROM nli_edges e JOIN pages p "
            f"ON p.task_id = e.task_id AND p.page_id = e.page_id WHERE e.task_id = ? AND {cond} GROUP BY 1",
            [task_id, *domains]).fetchall()) if overlay.blocked else {}
        policy_blocks = conn.execute(
            "SELECT domain, blocked_at, reason, cause_ids, original_trust_level, can_restore, restore_via "
            "FROM domain_verification WHERE task_id = ? AND status = 'BLOCKED' ORDER BY domain", [task_id]).fetchall()
    rules = overlay.rules
    published = published_generation(store, task_id)
    blocked = [BlockedDomain(
        domain=domain, blocked_at=rule.created_at, reason=f"blocked by a user rule on {rule.domain_pattern!r}: "
        f"{rule.reason}", cause_ids=[rule.id], original_trust_level=trust.get(domain), can_restore=True,
        restore_via=f"feedback domain_clear_override or domain_unblock with domain_pattern '{rule.domain_pattern}'",
    ) for domain, rule in sorted(overlay.blocked.items())]
    for domain, blocked_at, reason, causes, original, can_restore, restore_via in policy_blocks:
        decided = rule_for(domain, rules)
        if domain in overlay.blocked or (decided is not None and decided.decision == "unblock"):
            continue  # a user rule decides this domain
        blocked.append(BlockedDomain(
            domain=domain, blocked_at=blocked_at, reason=reason or "blocked by source verification",
            cause_ids=cell_list(causes)[:10], original_trust_level=original,
            can_restore=bool(can_restore), restore_via=restore_via or "feedback domain_unblock"))
    return TaskStatus(
        task_id=task_id, query=clip(task["query"], 300)[0], status=task["status"], error=clip(task["error"], 500)[0] or None,
        created_at=task["created_at"], updated_at=task["updated_at"], latest_run=run_state, assets=assets,
        row_counts=store.row_counts(task_id), blocked_domains=blocked[:20],
        active_nli_version=active[0] if active else default_nli_version(),
        edges_nli_version=version[0] if version else None,
        graph_run_id=published.run_id if published else None, graph_note=graph_note(store, task_id),
        feedback=FeedbackCounts(events=int(events), reviewed_edges=int(reviewed), corrected_edges=int(corrected),
                                rejected_claims=len(overlay.rejected)),
    )
