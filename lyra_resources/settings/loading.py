"""``LyraSettings``, holding every section, and reading it from ``config/settings.yaml`` (or
``$LYRA_SETTINGS``)."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import ConfigDict, Field, ValidationError

from lyra_core.validation import describe
from lyra_resources.config_files import ConfigFileError, load_config_yaml, read_config_text
from lyra_resources.environment import SETTINGS_ENV, read_environment
from lyra_resources.home import CONFIG_DIR

if TYPE_CHECKING:  # the ranking (numpy) is imported by the search that asks for its config
    pass


from lyra_resources.settings.pipeline import (
    EvidenceSettings,
    FragmentSettings,
    LlmSettings,
    ModelSettings,
    RankingSettings,
    SearchSettings,
    SettingsError,
    SettingsSection,
)
from lyra_resources.settings.services import (
    BrowserSettings,
    CitationSettings,
    ClusterSettings,
    CorpusFileSettings,
    LearningSettings,
    McpSettings,
    SourcesSettings,
)


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


def effective_cluster_settings(load: Callable[[], LyraSettings] | None = None) -> ClusterSettings:
    """The cluster section of the settings ``load`` returns (default: the user's settings file, read
    now), with the environment applied (``$LYRA_PROFILE`` …).

    A settings file that cannot be read leaves the profile to the environment (local unless
    ``$LYRA_PROFILE`` says cluster, which then needs the file): opening the instance or the store to
    read works as it always did, and the command that needs the settings reports the file in one line."""
    try:
        return (load or load_settings)().cluster.effective()
    except SettingsError:
        fallback = ClusterSettings().effective()
        if fallback.profile == "cluster" or (fallback.store == "postgres" and not fallback.postgres_url):
            raise
        return fallback


@functools.lru_cache(maxsize=8)
def _parsed_yaml(path: str, size: int, mtime_ns: int) -> Any:
    """The settings file parsed, once per version of it (size and time key it): parsing the
    commented file costs tens of milliseconds, and readers such as MCP's status ask for it on every call.
    Read with bounds (lyra_resources.config_files): a regular file, of at most 1 MiB, a few levels deep."""
    return load_config_yaml(read_config_text(Path(path)))


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
    except ConfigFileError as exc:
        raise SettingsError(f"settings file {path} {exc}") from None
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
