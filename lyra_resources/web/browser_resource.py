"""The ``WebBrowser`` Dagster resource: browser search and page fetching as a run configures them
(the ``browser:`` settings), and the browser session it opens."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from dagster import ConfigurableResource
from pydantic import Field

from lyra_resources.environment import read_environment
from lyra_resources.settings.services import BrowserSettings
from lyra_resources.web.browser import BrowserSession


class WebBrowser(ConfigurableResource):
    """Browser search and page fetching; fields mirror ``browser:`` in settings."""

    search: str = "auto"
    fetch: str = "auto"
    executable_path: str = ""
    headless: bool = True
    user_agent: str = ""
    concurrency: int = 3
    page_timeout_s: float = 20.0
    settle_s: float = 1.5
    max_page_bytes: int = 5_000_000
    allow_private_addresses: bool = False
    allowed_networks: list[str] = Field(default_factory=list)
    engines: list[str] = Field(default_factory=lambda: ["duckduckgo"])
    engine_urls: dict[str, str] = Field(default_factory=dict)
    results_per_engine: int = 10
    fetch_limit: int = 20
    loop_depth: int = 1
    identifiers_per_page: int = 20
    doi_resolver: str = "https://doi.org/"

    @classmethod
    def from_settings(cls, cfg: BrowserSettings, env: Mapping[str, str] | None = None) -> WebBrowser:
        """From ``config/settings.yaml``; ``$LYRA_BROWSER_SEARCH`` (auto|on|off) wins over the file."""
        values = cfg.model_dump()
        if override := (read_environment(env).browser_search or "").strip().lower():
            values["search"] = override
        return cls(**values)

    def config(self) -> BrowserSettings:
        """The fields validated as settings (a bad value fails here with the field's name)."""
        return BrowserSettings.model_validate(
            {name: getattr(self, name) for name in BrowserSettings.model_fields}
        )

    def session(
        self, *, is_blocked: Callable[[str], bool] | None = None, qps: Callable[[str], float] | None = None
    ) -> BrowserSession:
        return BrowserSession(self.config(), is_blocked=is_blocked, qps=qps)
