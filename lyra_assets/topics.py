"""The `claim_topics` asset: the task's adopted claims grouped into topics for exploration."""

import numpy as np
import pandas as pd
from dagster import AssetExecutionContext, MaterializeResult, asset

from lyra_assets import evidence
from lyra_assets.claims import claims as claims_asset
from lyra_assets.metadata import table_metadata
from lyra_assets.partitions import task_partitions
from lyra_core.topics import build_topics, contradicted
from lyra_resources.local_models import LocalModels
from lyra_resources.schema import CLAIM_TOPICS
from lyra_resources.settings import LyraSettings
from lyra_resources.store import LyraStore



@asset(partitions_def=task_partitions, group_name="evidence", kinds={"duckdb", "parquet"},
       deps=[evidence.claim_scores, claims_asset], code_version="2")
def claim_topics(context: AssetExecutionContext, store: LyraStore, models: LocalModels,
                 settings: LyraSettings) -> MaterializeResult:
    """Topics of the task's adopted claims, each with a label and its claims.

    A topic is a Louvain community of the graph that links claims with similar embeddings,
    labelled by its most distinctive terms (general words and adverbs left out).
    `has_contradiction` marks a topic in which some claim has strong votes both for and against it.
    """
    task_id = context.partition_key
    claims = store.fetch_df(
        "SELECT c.claim_id, c.text, coalesce(s.alpha, 1.0) AS alpha, coalesce(s.beta, 1.0) AS beta FROM claims c "
        "LEFT JOIN claim_scores s ON s.task_id = c.task_id AND s.claim_id = c.claim_id "
        "WHERE c.task_id = ? AND c.adoption_status = 'adopted' AND c.origin <> 'hypothesis' "
        "ORDER BY c.claim_id", [task_id])
    texts = claims["text"].tolist()
    vectors = models.cached_encoder(store)(texts) if texts else np.zeros((0, 1))
    topics = build_topics(task_id, claims["claim_id"].tolist(), texts, vectors, settings.evidence.topic_similarity)
    alphas, betas = claims["alpha"].to_numpy(), claims["beta"].to_numpy()
    frame = pd.DataFrame([{
        "topic_id": t.topic_id, "label": t.label, "label_method": "distinctive-terms",
        "claim_count": len(t.members), "has_contradiction": contradicted(t.members, alphas, betas),
        "claim_ids": [claims["claim_id"].iat[i] for i in t.members], "terms": t.terms,
    } for t in topics], columns=CLAIM_TOPICS.data_columns)
    store.replace_partition("claim_topics", task_id, frame)
    text_of = dict(zip(claims["claim_id"], claims["text"], strict=True))
    preview = frame.assign(first_claims=[" / ".join(text_of[c] for c in ids[:3]) for ids in frame["claim_ids"]])
    return MaterializeResult(metadata=table_metadata(
        preview, ["label", "claim_count", "has_contradiction", "first_claims"], store=store, task=task_id,
        table="claim_topics", width=240))
