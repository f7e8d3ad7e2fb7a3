"""Domain trust from evidence (source verification, docs/pipeline.md, step 12): per-domain decisions.

Inputs are the task's evidence edges annotated with the domains and trust levels of both sides
(the fragment's page, and the page the claim was extracted from). Rules:
- promotion: an UNVERIFIED domain whose claims are supported by at least two *other* domains
  (independent sources) is promoted to LOW;
- a REFUTES edge between two high-trust domains (primary, government, academic) is a scientific
  controversy: both sides stay, the conflict is PENDING;
- otherwise the side of lower trust (tiers: primary/government/academic > trusted > low/unverified)
  is REJECTED, not blocked; low vs low: both sides are REJECTED; trusted vs trusted: PENDING;
- an UNVERIFIED or LOW domain whose share of rejected judgements exceeds 30 % is BLOCKED, once
  it has at least ``min_judgements`` judgements (one contradiction alone never blocks);
- TRUSTED and above are never demoted automatically; user overrides are never changed.
Trust never touches claim confidence: these decisions rank and annotate, nothing more.
"""

from __future__ import annotations

from collections import defaultdict

from pydantic import BaseModel, Field

HIGH = {"primary", "government", "academic"}
TRUSTED_OR_ABOVE = HIGH | {"trusted"}
LOW = {"low", "unverified"}


def tier(level: str) -> int:
    """3: primary/government/academic, 2: trusted, 1: low/unverified, 0: blocked."""
    return 3 if level in HIGH else 2 if level == "trusted" else 1 if level in LOW else 0


class JudgedEdge(BaseModel):
    edge_id: str
    claim_id: str
    relation: str
    source_domain: str  # the fragment's page
    source_level: str
    target_domain: str | None  # the page the claim came from; None for a user's claim
    target_level: str | None


class DomainDecision(BaseModel):
    domain: str
    original_trust_level: str
    trust_level: str
    status: str  # VERIFIED, PENDING, REJECTED, BLOCKED, UNCHANGED
    promotion: str  # PROMOTED, DEMOTED, UNCHANGED
    reason: str
    cause_ids: list[str] = Field(default_factory=list)
    rejection_rate: float = 0.0
    judgements: int = 0
    corroborating_domains: list[str] = Field(default_factory=list)
    overridden: bool = False


def verify_domains(
    edges: list[JudgedEdge],
    levels: dict[str, str],
    overridden: set[str] | None = None,
    block_rate: float = 0.30,
    min_judgements: int = 3,
) -> list[DomainDecision]:
    """One decision per domain that appears on either side of an edge."""
    overridden = overridden or set()
    corroborators: dict[str, set[str]] = defaultdict(set)
    support_causes: dict[str, list[str]] = defaultdict(list)
    rejected: dict[str, list[str]] = defaultdict(list)
    pending: dict[str, list[str]] = defaultdict(list)
    judged: dict[str, set[str]] = defaultdict(set)  # claim-level judgements per domain

    for e in edges:
        if e.relation == "SUPPORTS" and e.target_domain and e.source_domain != e.target_domain:
            corroborators[e.target_domain].add(e.source_domain)
            support_causes[e.target_domain].append(e.edge_id)
            judged[e.target_domain].add(e.claim_id)
        if e.relation != "REFUTES" or e.target_domain is None or e.source_domain == e.target_domain:
            continue
        judged[e.source_domain].add(e.claim_id)
        judged[e.target_domain].add(e.claim_id)
        s, t = tier(e.source_level), tier(e.target_level or "unverified")
        if s == t == 1:  # low vs low: neither side can vouch for the other
            rejected[e.source_domain].append(e.edge_id)
            rejected[e.target_domain].append(e.edge_id)
        elif s == t:  # comparable trust (academic vs academic, …): a controversy, both kept
            pending[e.source_domain].append(e.edge_id)
            pending[e.target_domain].append(e.edge_id)
        else:  # the lower-trust side is rejected, never blocked for this alone
            rejected[e.source_domain if s < t else e.target_domain].append(e.edge_id)

    domains = sorted({e.source_domain for e in edges} | {e.target_domain for e in edges if e.target_domain})
    decisions = []
    for domain in domains:
        level = levels.get(domain, "unverified")
        n_rejected = len(set(rejected[domain]))
        n_judged = max(len(judged[domain]), n_rejected)
        rate = n_rejected / n_judged if n_judged else 0.0
        others = sorted(corroborators[domain] - {domain})
        trust_level, status, promotion = level, "UNCHANGED", "UNCHANGED"
        causes: list[str] = []
        if domain in overridden:
            reason = "user override in config/domains.yaml"
        elif level in LOW and n_rejected and rate > block_rate and n_judged >= min_judgements:
            trust_level, status, promotion = "blocked", "BLOCKED", "DEMOTED"
            reason = f"{n_rejected} of {n_judged} judged claims rejected ({rate:.0%} > {block_rate:.0%})"
            causes = sorted(set(rejected[domain]))
        elif rejected[domain]:
            note = " (trusted or above: never demoted automatically)" if level in TRUSTED_OR_ABOVE else ""
            status = "REJECTED"
            reason = f"lost {n_rejected} contradiction(s) to sources of higher or equally low trust{note}"
            causes = sorted(set(rejected[domain]))
        elif pending[domain]:
            status = "PENDING"
            reason = (
                "scientific controversy: contradicted by and contradicting sources of comparable trust; "
                "both sides kept"
            )
            causes = sorted(set(pending[domain]))
        elif level == "unverified" and len(others) >= 2:
            trust_level, status, promotion = "low", "VERIFIED", "PROMOTED"
            reason = f"corroborated by {len(others)} independent domains: {', '.join(others[:5])}"
            causes = sorted(set(support_causes[domain]))
        else:
            reason = "no decisive evidence"
        decisions.append(
            DomainDecision(
                domain=domain,
                original_trust_level=level,
                trust_level=trust_level,
                status=status,
                promotion=promotion,
                reason=reason,
                cause_ids=causes,
                rejection_rate=round(rate, 3),
                judgements=n_judged,
                corroborating_domains=others,
                overridden=domain in overridden,
            )
        )
    return decisions
