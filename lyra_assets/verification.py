"""The `domain_verification` asset: per-domain trust decisions from the task's evidence."""

import json
import logging
from datetime import UTC, datetime

import pandas as pd
from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, ResourceParam, asset

from lyra_assets import documents, evidence
from lyra_assets.claims import claims as claims_asset
from lyra_assets.metadata import table_metadata
from lyra_assets.partitions import task_partitions
from lyra_core.verification import JudgedEdge, verify_domains
from lyra_resources.web.domain_policy import DomainTrust
from lyra_resources.schema import DOMAIN_VERIFICATION
from lyra_resources.store.lyra_store import LyraStore

log = logging.getLogger("lyra.verification")
RESTORE_VIA = "config/domains.yaml user_overrides"


def judged_edges(store: LyraStore, task_id: str) -> pd.DataFrame:
    """Edges with the domain of the fragment's page and of the page the claim came from."""
    return store.fetch_df(
        "SELECT e.edge_id, e.claim_id, e.relation, sp.domain AS source_domain, "
        "e.source_trust_level AS source_level, tp.domain AS target_domain, e.target_trust_level AS target_level "
        "FROM nli_edges e "
        "JOIN fragments sf ON sf.task_id = e.task_id AND sf.fragment_id = e.fragment_id "
        "JOIN pages sp ON sp.task_id = e.task_id AND sp.page_id = sf.page_id "
        "JOIN claims c ON c.task_id = e.task_id AND c.claim_id = e.claim_id "
        "LEFT JOIN fragments tf ON tf.task_id = c.task_id AND tf.fragment_id = c.source_fragment_id "
        "LEFT JOIN pages tp ON tp.task_id = tf.task_id AND tp.page_id = tf.page_id "
        "WHERE e.task_id = ? ORDER BY e.edge_id", [task_id])


@asset(partitions_def=task_partitions, group_name="evidence", kinds={"duckdb", "parquet"},
       deps=[evidence.nli_edges, claims_asset, documents.fragments, documents.pages], code_version="1")
def domain_verification(context: AssetExecutionContext, store: ResourceParam[LyraStore], trust: DomainTrust) -> MaterializeResult:
    """Each domain of the task with its trust level before and after verification.

    A domain is promoted to LOW when two independent domains corroborate it, REJECTED or BLOCKED
    when it loses contradictions, PENDING when sources of comparable trust disagree (a scientific
    controversy). Every decision has a reason and the edge ids that caused it. Claim confidence
    is untouched.
    """
    task_id = context.partition_key
    policy = trust.policy()
    rows = judged_edges(store, task_id)
    edges = [JudgedEdge(**{k: (None if pd.isna(v) else v) for k, v in r.items()}) for r in rows.to_dict("records")]
    domains = set(rows["source_domain"]) | set(rows["target_domain"].dropna())
    levels = {d: policy.trust_level(d).value for d in domains}
    overridden = {d for d in domains if policy.override_for(d) is not None}
    decisions = verify_domains(edges, levels, overridden)
    now = datetime.now(UTC).replace(tzinfo=None)
    records = []
    for d in decisions:
        blocked = d.status == "BLOCKED"
        records.append({**d.model_dump(exclude={"overridden"}), "blocked_at": now if blocked else None,
                        "can_restore": blocked, "restore_via": RESTORE_VIA if blocked else None})
        if d.status != "UNCHANGED":  # one structured line per decision, for log search
            log.warning(json.dumps({"event": "domain_verification", "task_id": task_id, "domain": d.domain,
                                    "status": d.status, "from": d.original_trust_level, "to": d.trust_level,
                                    "reason": d.reason, "cause_ids": d.cause_ids[:20]}))
    frame = pd.DataFrame(records, columns=DOMAIN_VERIFICATION.data_columns)
    store.replace_partition("domain_verification", task_id, frame)
    counts = frame["status"].value_counts().to_dict()
    decided_first = frame.sort_values("status", key=lambda s: s == "UNCHANGED", kind="stable")
    return MaterializeResult(metadata={
        **table_metadata(decided_first, ["domain", "status", "original_trust_level", "trust_level", "reason"],
                         store=store, task=task_id, table="domain_verification", width=120),
        "statuses": MetadataValue.json({k: int(v) for k, v in counts.items()}),
    })
