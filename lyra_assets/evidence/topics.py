"""The `claim_topics` asset: the task's adopted claims grouped into topics for exploration."""

import numpy as np
import pandas as pd
from dagster import AssetExecutionContext, Output, ResourceParam

from lyra_assets.evidence import judging
from lyra_assets.evidence.claims import claims as claims_asset
from lyra_assets.metadata import table_metadata
from lyra_assets.task_assets import task_table
from lyra_core.topics import build_topics, contradicted
from lyra_resources.models.local_models import LocalModels
from lyra_resources.schema import CLAIM_TOPICS
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.store.lyra_store import LyraStore


def adopted_claims(claims: pd.DataFrame, claim_scores: pd.DataFrame) -> pd.DataFrame:
    """The task's adopted claims (the hypothesis left out) by ``claim_id``: ``claim_id``, ``text``
    and their Beta ``alpha``/``beta`` (1.0, the prior, for a claim not scored)."""
    kept = claims[
        (claims["adoption_status"] == "adopted")
        & claims["origin"].notna()
        & (claims["origin"] != "hypothesis")
    ]
    scores = claim_scores.loc[claim_scores["claim_id"].notna(), ["claim_id", "alpha", "beta"]]
    adopted = kept[["claim_id", "text"]].merge(scores, on="claim_id", how="left")
    adopted[["alpha", "beta"]] = adopted[["alpha", "beta"]].astype(float).fillna(1.0)
    return adopted.sort_values("claim_id", kind="stable").reset_index(drop=True)


@task_table(ins={"claims": claims_asset, "claim_scores": judging.claim_scores})
def claim_topics(
    context: AssetExecutionContext,
    claims: pd.DataFrame,
    claim_scores: pd.DataFrame,
    store: ResourceParam[LyraStore],
    models: LocalModels,
    settings: ResourceParam[LyraSettings],
) -> Output[pd.DataFrame]:
    """Topics of the task's adopted claims, each with a label and its claims.

    A topic is a Louvain community of the graph that links claims with similar embeddings,
    labelled by its most distinctive terms (general words and adverbs left out).
    `has_contradiction` marks a topic in which some claim has strong votes both for and against it.
    """
    task_id = context.partition_key
    adopted = adopted_claims(claims, claim_scores)
    texts = adopted["text"].tolist()
    vectors = models.cached_encoder(store)(texts) if texts else np.zeros((0, 1))
    topics = build_topics(
        task_id, adopted["claim_id"].tolist(), texts, vectors, settings.evidence.topic_similarity
    )
    alphas, betas = adopted["alpha"].to_numpy(), adopted["beta"].to_numpy()
    frame = pd.DataFrame(
        [
            {
                "topic_id": t.topic_id,
                "label": t.label,
                "label_method": "distinctive-terms",
                "claim_count": len(t.members),
                "has_contradiction": contradicted(t.members, alphas, betas),
                "claim_ids": [adopted["claim_id"].iat[i] for i in t.members],
                "terms": t.terms,
            }
            for t in topics
        ],
        columns=CLAIM_TOPICS.data_columns,
    )
    text_of = dict(zip(adopted["claim_id"], adopted["text"], strict=True))
    preview = frame.assign(
        first_claims=[" / ".join(text_of[c] for c in ids[:3]) for ids in frame["claim_ids"]]
    )
    return Output(
        frame,
        metadata=table_metadata(
            preview, ["label", "claim_count", "has_contradiction", "first_claims"], width=240
        ),
    )
