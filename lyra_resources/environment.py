"""Every environment variable Lyra reads, in one place.

:class:`LyraEnvironment` has a field per variable, named by its ``validation_alias``, with what it
does; :func:`read_environment` reads them from the process's environment at the moment it is called,
so a variable set after import (by a test, by the CLI before a run) counts. Every other module asks
this one: no other module of the packages touches ``os.environ`` (a unit test checks this, and that
docs/settings.md lists exactly these variables).

A field is ``None`` where its variable is unset. An empty value stays ``""``: most readers treat it as
unset (``value or default``), a few as given, as they always did.

The writers are here too: the environment a child process starts with (:func:`child_environment`)
and the defaults this process sets for the libraries it loads (:func:`set_defaults`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

HOME_ENV = "LYRA_HOME"
SETTINGS_ENV = "LYRA_SETTINGS"
PROFILE_ENV = "LYRA_PROFILE"
STORE_ENV = "LYRA_STORE"
LIVE_ENV = "LYRA_SOURCES_LIVE"
DEBUG_ENV = "LYRA_DEBUG"


def _variable(name: str, meaning: str) -> str | None:
    return Field(None, validation_alias=name, description=meaning)


class LyraEnvironment(BaseModel):
    """The environment variables Lyra honours, as they are set (``None``: unset)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    home: str | None = _variable(HOME_ENV, "the Lyra home when `--home` is not given (default `./.lyra`)")
    settings: str | None = _variable(SETTINGS_ENV, "another settings file (it must exist)")
    config_dir: str | None = _variable(
        "LYRA_CONFIG_DIR",
        "the folder holding `settings.yaml`, `domains.yaml` and `prompts/` "
        "(default: the repository's `config/`); read once, when Lyra is imported",
    )
    domains: str | None = _variable(
        "LYRA_DOMAINS",
        "another domain policy file than `config/domains.yaml`; read once, when Lyra is imported",
    )
    profile: str | None = _variable(PROFILE_ENV, "`local` or `cluster`: wins over `cluster.profile`")
    store: str | None = _variable(
        STORE_ENV, "`auto`, `duckdb` or `postgres`: where the store's tables are; wins over `cluster.store`"
    )
    postgres_url: str | None = _variable(
        "LYRA_POSTGRES_URL", "the cluster's Postgres: wins over `cluster.postgres_url`"
    )
    redis_url: str | None = _variable(
        "LYRA_REDIS_URL", "the cluster's Redis broker: wins over `cluster.redis_url`"
    )
    sources_live: str | None = _variable(
        LIVE_ENV, "`auto` (live when the task has no corpus), `on`, `off`: wins over `sources.live`"
    )
    browser_search: str | None = _variable(
        "LYRA_BROWSER_SEARCH", "`auto`, `on`, `off`: wins over `browser.search`"
    )
    s2_base_url: str | None = _variable(
        "LYRA_S2_BASE_URL", "a Semantic Scholar mirror or proxy: wins over `sources.semantic_scholar_url`"
    )
    openalex_base_url: str | None = _variable(
        "LYRA_OPENALEX_BASE_URL", "an OpenAlex mirror or proxy: wins over `sources.openalex_url`"
    )
    mailto: str | None = _variable(
        "LYRA_MAILTO", "your address for OpenAlex's polite pool: wins over `sources.mailto`"
    )
    s2_api_key: str | None = _variable("S2_API_KEY", "Semantic Scholar API key (sent as `x-api-key`)")
    openalex_api_key: str | None = _variable("OPENALEX_API_KEY", "OpenAlex API key (sent as `api_key`)")
    ollama_host: str | None = _variable(
        "OLLAMA_HOST",
        "the Ollama server for claim extraction and citation relevance: wins over `llm.ollama_url`",
    )
    debug: str | None = _variable(
        DEBUG_ENV, "`1`: an unexpected error's traceback on the terminal rather than in a file"
    )

    @classmethod
    def variables(cls) -> dict[str, str]:
        """Variable name → what it does, for every variable Lyra reads."""
        return {str(field.validation_alias): field.description or "" for field in cls.model_fields.values()}

    @property
    def debugging(self) -> bool:
        return (self.debug or "") not in ("", "0")


def read_environment(env: Mapping[str, str] | None = None) -> LyraEnvironment:
    """Lyra's variables as ``env`` holds them (default: this process's environment, read now)."""
    env = os.environ if env is None else env
    return LyraEnvironment.model_validate(
        {name: env[name] for name in LyraEnvironment.variables() if name in env}
    )


def child_environment(**overrides: str) -> dict[str, str]:
    """The environment of a child process: this process's, with ``overrides`` set."""
    return {**os.environ, **overrides}


def python_path(*first: str) -> str:
    """A ``PYTHONPATH`` for a child process: ``first``, then this process's ``PYTHONPATH``."""
    return os.pathsep.join(p for p in (*first, os.environ.get("PYTHONPATH")) if p)


def set_defaults(**values: str) -> None:
    """Set variables the libraries this process loads read, where the user has not set them."""
    for name, value in values.items():
        os.environ.setdefault(name, value)
