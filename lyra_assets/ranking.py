"""The `fragment_ranking` asset: BM25, then embeddings, then a cross-encoder over the task's fragments."""

import pandas as pd
from dagster import AssetExecutionContext, MetadataValue, Output, ResourceParam

from lyra_assets import documents
from lyra_assets.metadata import table_metadata
from lyra_assets.task_assets import TASK, task_table
from lyra_core.domain_rules import blocked_domains
from lyra_core.tasks import TaskOptions
from lyra_resources.models.local_models import LocalModels
from lyra_resources.models.text_ranking import bm25_scores, rank_texts
from lyra_resources.schema import FRAGMENT_RANKING
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.sources.literature import LiteratureSources
from lyra_resources.store.lyra_store import LyraStore, TaskRecord
from lyra_resources.store.relevance_signals import relevance_multipliers
from lyra_resources.web.domain_policy import DomainTrust, user_domain_rules


def trust_weights(
    store: LyraStore, fragments: pd.DataFrame, pages: pd.DataFrame, trust: DomainTrust
) -> pd.Series:
    """Ranking weight of each fragment's source domain (its page's, from ``pages``): the trust
    weight of its level in config/domains.yaml (primary 1.0 … unverified 0.3), 0 for a domain a
    user blocked through feedback. The weights only ever multiply ranking scores, never a claim's
    confidence."""
    policy = trust.policy()
    domains = pages[["page_id", "domain"]]
    blocked = blocked_domains(domains["domain"], user_domain_rules(store))
    weight = {
        page: 0.0 if domain in blocked else policy.weight(policy.trust_level(domain))
        for page, domain in zip(domains["page_id"], domains["domain"], strict=True)
    }
    return fragments["page_id"].map(weight).fillna(policy.weight(policy.trust_level(None))).astype(float)


def ranking_weights(
    store: LyraStore, task_id: str, fragments: pd.DataFrame, pages: pd.DataFrame, trust: DomainTrust
) -> pd.Series:
    """Weight multiplying each fragment's ranking score: its domain trust weight times the
    relevance multiplier learned from agents' signals on this task (1.0 until a fragment was shown
    5 times; see lyra_core.feedback.relevance_multiplier). Stored as ``trust_weight``."""
    relevance = fragments["fragment_id"].map(relevance_multipliers(store, task_id)).fillna(1.0).astype(float)
    return trust_weights(store, fragments, pages, trust) * relevance


def ranking_frame(scores: dict, fragment_ids: list[str]) -> pd.DataFrame:
    # explicit dtypes: with no fragment at all, pandas would make every column float64
    frame = pd.DataFrame(
        {
            "fragment_id": pd.Series(fragment_ids, dtype=object),
            **{name: pd.Series(values, dtype=float) for name, values in scores.items()},
        }
    )
    frame = frame[FRAGMENT_RANKING.data_columns]
    frame["stage"] = frame["stage"].astype(int)
    frame["final_rank"] = frame["final_rank"].astype("Int64").where(frame["final_rank"] > 0)
    return frame.sort_values(["final_rank", "bm25_score"], ascending=[True, False], na_position="last")


@task_table(ins={"task": TASK, "fragments": documents.fragments, "pages": documents.pages}, reads_corpus=True)
def fragment_ranking(
    context: AssetExecutionContext,
    task: TaskRecord,
    fragments: pd.DataFrame,
    pages: pd.DataFrame,
    store: ResourceParam[LyraStore],
    models: LocalModels,
    literature: LiteratureSources,
    trust: DomainTrust,
    settings: ResourceParam[LyraSettings],
) -> Output[pd.DataFrame]:
    """How well each fragment answers the task's question, and its final rank.

    Three stages, as `ranking` in the settings says: BM25 keeps the top fragments (100 by
    default); their BM25 score is fused with embedding cosine (0.3·BM25 + 0.7·cosine by default);
    a cross-encoder rescores the best when one is available for the corpus. Scores are weighted
    by the trust of the fragment's domain and by agents' relevance signals; `final_rank` orders
    the fragments that passed the second stage.
    """
    texts = fragments["text"].tolist()
    options = TaskOptions.model_validate(task.options)
    corpus_paths = options.corpus or literature.default_corpus
    reranker, rerank_method = models.reranker_for(
        lambda: literature.corpus(corpus_paths[0]).fingerprint if corpus_paths else None
    )
    scores = rank_texts(
        task.query,
        texts,
        bm25_scores(task.query, texts),
        store=store,
        models=models,
        reranker=reranker,
        config=settings.ranking.ranking_config(),
        trust=ranking_weights(store, task.id, fragments, pages, trust).to_numpy(),
    )
    frame = ranking_frame(scores, fragments["fragment_id"].tolist())
    context.log.info(f"stage 3 {rerank_method}")
    preview = frame.merge(fragments[["fragment_id", "text"]], on="fragment_id", how="left")
    return Output(
        frame,
        metadata={
            **table_metadata(preview, ["final_rank", "text", "final_score"], width=120),
            "reranker": MetadataValue.text(rerank_method),
            "ranked": MetadataValue.int(int((frame["stage"] >= 2).sum())),
        },
    )
