"""The settings sections of what the pipeline talks to: literature sources, citations, the browser,
learning from corrections, corpus files, the MCP server and the cluster profile."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from pydantic import ConfigDict, Field, field_validator

from lyra_resources.environment import PROFILE_ENV, STORE_ENV, read_environment

if TYPE_CHECKING:  # the ranking (numpy) is imported by the search that asks for its config
    pass


from lyra_resources.settings.pipeline import SettingsError, SettingsSection


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
