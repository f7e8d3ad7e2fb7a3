"""The `domain_verification` asset: per-domain trust decisions from the task's evidence."""

import json
import logging
from datetime import UTC, datetime

import pandas as pd
from dagster import AssetExecutionContext, MetadataValue, Output

from lyra_assets import documents
from lyra_assets.evidence import judging
from lyra_assets.evidence.claims import claims as claims_asset
from lyra_assets.metadata import table_metadata
from lyra_assets.task_assets import task_table
from lyra_core.domain_trust import JudgedEdge, verify_domains
from lyra_resources.schema import DOMAIN_VERIFICATION
from lyra_resources.web.domain_policy import DomainTrust

log = logging.getLogger("lyra.verification")
RESTORE_VIA = "config/domains.yaml user_overrides"


def judged_edges(
    edges: pd.DataFrame, claims: pd.DataFrame, fragments: pd.DataFrame, pages: pd.DataFrame
) -> pd.DataFrame:
    """Edges with the domain of the fragment's page and of the page the claim came from (none for
    a claim of no fragment); an edge whose fragment, page or claim is gone is left out."""
    page_of = dict(zip(fragments["fragment_id"], fragments["page_id"], strict=True))
    domain_of = dict(zip(pages["page_id"], pages["domain"], strict=True))
    claim_fragment = dict(zip(claims["claim_id"], claims["source_fragment_id"], strict=True))
    rows = []
    for e in edges.sort_values("edge_id", kind="stable").itertuples(index=False):
        source_page = page_of.get(e.fragment_id)
        if source_page not in domain_of or e.claim_id not in claim_fragment:
            continue
        target_page = page_of.get(claim_fragment[e.claim_id])
        rows.append(
            {
                "edge_id": e.edge_id,
                "claim_id": e.claim_id,
                "relation": e.relation,
                "source_domain": domain_of[source_page],
                "source_level": e.source_trust_level,
                "target_domain": domain_of.get(target_page),
                "target_level": e.target_trust_level,
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "edge_id",
            "claim_id",
            "relation",
            "source_domain",
            "source_level",
            "target_domain",
            "target_level",
        ],
    )


@task_table(
    ins={
        "nli_edges": judging.nli_edges,
        "claims": claims_asset,
        "fragments": documents.fragments,
        "pages": documents.pages,
    }
)
def domain_verification(
    context: AssetExecutionContext,
    nli_edges: pd.DataFrame,
    claims: pd.DataFrame,
    fragments: pd.DataFrame,
    pages: pd.DataFrame,
    trust: DomainTrust,
) -> Output[pd.DataFrame]:
    """Each domain of the task with its trust level before and after verification.

    A domain is promoted to LOW when two independent domains corroborate it, REJECTED or BLOCKED
    when it loses contradictions, PENDING when sources of comparable trust disagree (a scientific
    controversy). Every decision has a reason and the edge ids that caused it. Claim confidence
    is untouched.
    """
    task_id = context.partition_key
    policy = trust.policy()
    rows = judged_edges(nli_edges, claims, fragments, pages)
    edges = [
        JudgedEdge(**{k: (None if pd.isna(v) else v) for k, v in r.items()}) for r in rows.to_dict("records")
    ]
    domains = set(rows["source_domain"]) | set(rows["target_domain"].dropna())
    levels = {d: policy.trust_level(d).value for d in domains}
    overridden = {d for d in domains if policy.override_for(d) is not None}
    decisions = verify_domains(edges, levels, overridden)
    now = datetime.now(UTC).replace(tzinfo=None)
    records = []
    for d in decisions:
        blocked = d.status == "BLOCKED"
        records.append(
            {
                **d.model_dump(exclude={"overridden"}),
                "blocked_at": now if blocked else None,
                "can_restore": blocked,
                "restore_via": RESTORE_VIA if blocked else None,
            }
        )
        if d.status != "UNCHANGED":  # one structured line per decision, for log search
            log.warning(
                json.dumps(
                    {
                        "event": "domain_verification",
                        "task_id": task_id,
                        "domain": d.domain,
                        "status": d.status,
                        "from": d.original_trust_level,
                        "to": d.trust_level,
                        "reason": d.reason,
                        "cause_ids": d.cause_ids[:20],
                    }
                )
            )
    frame = pd.DataFrame(records, columns=DOMAIN_VERIFICATION.data_columns)
    counts = frame["status"].value_counts().to_dict()
    decided_first = frame.sort_values("status", key=lambda s: s == "UNCHANGED", kind="stable")
    return Output(
        frame,
        metadata={
            **table_metadata(
                decided_first,
                ["domain", "status", "original_trust_level", "trust_level", "reason"],
                width=120,
            ),
            "statuses": MetadataValue.json({k: int(v) for k, v in counts.items()}),
        },
    )
