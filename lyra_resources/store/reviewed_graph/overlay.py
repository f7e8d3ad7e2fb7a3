"""The human overlay on a task's model output: corrected edge labels, rejected claims and domain
rules in force, and the claims, scores and topics as they stand with it applied."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from lyra_core.cells import cell_list
from lyra_core.domain_rules import DomainRule, blocked_domains
from lyra_core.feedback import effective_edges, effective_scores, touched_claims
from lyra_core.scoring import ScoringRule
from lyra_resources.settings.loading import shared_settings
from lyra_resources.store.generations import published_scoring_rule
from lyra_resources.store.reviewed_graph.queries import CLAIM_SQL, claim_edges, fetch_rows, in_ids
from lyra_resources.store.reviewed_graph.records import Topic


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
    rule: ScoringRule = field(default_factory=ScoringRule)  # how rescored claims count their papers' votes

    @property
    def excluded(self) -> set[str]:
        """Claims whose stored model rows do not stand as they are: rejected or rescored."""
        return self.rejected | self.touched


def active_rules(conn: duckdb.DuckDBPyConnection) -> list[DomainRule]:
    return [
        DomainRule(**r)
        for r in fetch_rows(
            conn,
            "SELECT id, domain_pattern, decision, coalesce(reason, '') AS reason, created_at "
            "FROM domain_override_rules WHERE is_active ORDER BY created_at, id",
        )
    ]


def load_overlay(conn: duckdb.DuckDBPyConnection, task_id: str, rule: ScoringRule | None = None) -> Overlay:
    """Reviews, rejections and domain rules in force on the task, and the claims they touch;
    ``rule`` scores the claims they touch (default: the rule the published run scored under, or for a
    task whose run recorded none, the settings file's ``evidence`` rule)."""
    overlay = Overlay(
        rule=rule or published_scoring_rule(conn, task_id) or shared_settings().evidence.scoring_rule()
    )
    for kind, key, value in conn.execute(
        "SELECT 0, edge_id, correct_relation FROM edge_reviews WHERE task_id = $1 "
        "UNION ALL SELECT 1, claim_id, NULL FROM claim_rejections WHERE task_id = $1 AND is_active "
        "UNION ALL (SELECT 2, id, NULL FROM domain_override_rules WHERE is_active LIMIT 1)",
        [task_id],
    ).fetchall():
        if kind == 0:
            overlay.reviews[key] = value
        elif kind == 1:
            overlay.rejected.add(key)
        else:
            overlay.rules = active_rules(conn)
    if any(r.decision == "block" for r in overlay.rules):
        domains = [
            r[0]
            for r in conn.execute(
                "SELECT DISTINCT domain FROM pages WHERE task_id = ? AND domain IS NOT NULL", [task_id]
            ).fetchall()
        ]
        overlay.blocked = blocked_domains(domains, overlay.rules)
    edges: list[dict[str, Any]] = []
    if overlay.reviews:
        edges += fetch_rows(
            conn,
            "SELECT e.edge_id, e.claim_id, e.relation, e.page_id FROM nli_edges e "
            "JOIN edge_reviews r ON r.edge_id = e.edge_id WHERE e.task_id = ? AND r.task_id = ?",
            [task_id, task_id],
        )
    if overlay.blocked:
        cond, params, _ = in_ids("p.domain", sorted(overlay.blocked))
        pages = fetch_rows(
            conn, f"SELECT p.page_id FROM pages p WHERE p.task_id = ? AND {cond}", [task_id, *params]
        )
        overlay.blocked_pages = {r["page_id"] for r in pages}
        edges += fetch_rows(
            conn,
            "SELECT e.edge_id, e.claim_id, e.relation, e.page_id FROM nli_edges e JOIN pages p "
            f"ON p.task_id = e.task_id AND p.page_id = e.page_id WHERE e.task_id = ? AND {cond}",
            [task_id, *params],
        )
    overlay.touched = touched_claims(edges, overlay.reviews, overlay.blocked_pages)
    overlay.reviewed_claims = {e["edge_id"]: e["claim_id"] for e in edges if e["edge_id"] in overlay.reviews}
    return overlay


def rescore(claims: list[dict[str, Any]], edges: list[dict[str, Any]], overlay: Overlay) -> None:
    """Replace, in place, the stored score of each claim the overlay touches (or that has none)
    by the score of its effective edges; ``edges`` must hold those claims' model edges."""
    todo = [c for c in claims if c["claim_id"] in overlay.touched or c.get("verdict") is None]
    if not todo:
        return
    effective = effective_edges(edges, overlay.reviews, overlay.blocked_pages)
    for method in {c.get("method") or "bayesian" for c in todo}:
        group = [c for c in todo if (c.get("method") or "bayesian") == method]
        scores = effective_scores(
            effective, [c["claim_id"] for c in group], use_bayesian=(method != "legacy"), rule=overlay.rule
        )
        for claim in group:
            claim.update(scores[claim["claim_id"]].model_dump(), method=method, recomputed=True)


def load_claims(
    conn: duckdb.DuckDBPyConnection,
    task_id: str,
    overlay: Overlay,
    claim_ids: Sequence[str] | None = None,
    where: str = "",
    order: str = "",
) -> list[dict[str, Any]]:
    """Adopted claims with their effective scores and ``rejected`` flag: all of the task's, those
    of ``claim_ids``, or those matching ``where`` (Lyra's own SQL over aliases c and s; claims the
    overlay touches are fetched as well, since their stored score is not their score)."""
    sql, params, post = CLAIM_SQL, [task_id], None
    if claim_ids is not None:
        cond, ids, post = in_ids("c.claim_id", claim_ids)
        sql, params = sql + f" AND {cond}", [*params, *ids]
    if where:
        cond, ids, extra = in_ids("c.claim_id", sorted(overlay.touched))
        sql, params = sql + f" AND ({where} OR {cond if extra is None else 'TRUE'})", [*params, *ids]
    claims = fetch_rows(conn, sql + (f" ORDER BY {order}" if order else ""), params)
    if post is not None:
        claims = [c for c in claims if c["claim_id"] in post]
    for claim in claims:
        claim["rejected"] = claim["claim_id"] in overlay.rejected
        claim["recomputed"] = False
    need = [c["claim_id"] for c in claims if c["claim_id"] in overlay.touched or c.get("verdict") is None]
    rescore(claims, claim_edges(conn, task_id, need), overlay)
    for claim in claims:
        for col in (
            "supporting_count",
            "refuting_count",
            "neutral_count",
            "independent_sources",
            "evidence_count",
        ):
            claim[col] = int(claim.get(col) or 0)
    return claims


def refuted_claims(conn: duckdb.DuckDBPyConnection, task_id: str, overlay: Overlay) -> set[str]:
    """Claims in force with at least one effective REFUTES edge."""
    excluded = overlay.excluded
    stored = {
        r[0]
        for r in conn.execute(
            "SELECT claim_id FROM claim_scores WHERE task_id = ? AND refuting_count > 0", [task_id]
        ).fetchall()
    }
    live_touched = sorted(overlay.touched - overlay.rejected)
    touched = (
        {c["claim_id"] for c in load_claims(conn, task_id, overlay, live_touched) if c["refuting_count"] > 0}
        if live_touched
        else set()
    )
    return (stored - excluded) | touched


def effective_topics(topics: list[dict[str, Any]], rejected: set[str], refuted: set[str]) -> list[Topic]:
    """Topics counted over the claims in force: rejected claims leave, and a topic is
    contradicted when one of its claims has an effective REFUTES edge."""
    out = []
    for row in topics:
        members = [c for c in cell_list(row["claim_ids"]) if c not in rejected]
        out.append(
            Topic(
                topic_id=row["topic_id"],
                label=row["label"],
                claim_count=len(members),
                has_contradiction=any(c in refuted for c in members),
                terms=cell_list(row["terms"])[:5],
            )
        )
    return sorted(out, key=lambda t: (-t.claim_count, t.topic_id))
