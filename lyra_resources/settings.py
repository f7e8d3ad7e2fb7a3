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


class LyraSettings(BaseModel):
    """Settings from ``config/settings.yaml``; every field has a working default."""

    model_config = ConfigDict(extra="forbid")
    corpus: list[str] = Field(default_factory=list, description="local corpus paths used when a task names none")
    search: SearchSettings = Field(default_factory=SearchSettings)
    fragments: FragmentSettings = Field(default_factory=FragmentSettings)
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
