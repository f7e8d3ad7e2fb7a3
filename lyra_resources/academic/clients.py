"""Build the live clients from settings and the environment.

Environment (wins over ``config/settings.yaml``): ``LYRA_S2_BASE_URL``, ``LYRA_OPENALEX_BASE_URL``
(proxies, mirrors, tests), ``S2_API_KEY`` (sent as ``x-api-key``), ``LYRA_MAILTO`` (OpenAlex's
polite pool), ``OPENALEX_API_KEY`` (sent as ``api_key``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import httpx

from lyra_resources.academic.base import AcademicSource
from lyra_resources.academic.cache import HttpCache
from lyra_resources.academic.openalex import OpenAlexClient
from lyra_resources.academic.policy import ApiClient, HttpPolicy
from lyra_resources.academic.semantic_scholar import SemanticScholarClient
from lyra_resources.settings import SourcesSettings


def _common(cfg: SourcesSettings) -> dict:
    return {"connect_timeout_s": cfg.connect_timeout_s, "read_timeout_s": cfg.read_timeout_s,
            "max_attempts": cfg.max_attempts, "max_retry_wait_s": cfg.max_retry_wait_s, "backoff_s": cfg.backoff_s}


def s2_policy(cfg: SourcesSettings, env: Mapping[str, str] = os.environ) -> HttpPolicy:
    key = env.get("S2_API_KEY", "").strip()
    return HttpPolicy(api="Semantic Scholar", base_url=env.get("LYRA_S2_BASE_URL") or cfg.semantic_scholar_url,
                      requests_per_second=cfg.s2_requests_per_second,
                      headers={"x-api-key": key} if key else {}, **_common(cfg))


def openalex_policy(cfg: SourcesSettings, env: Mapping[str, str] = os.environ) -> HttpPolicy:
    mailto = (env.get("LYRA_MAILTO") or cfg.mailto).strip()
    key = env.get("OPENALEX_API_KEY", "").strip()
    agent = f"lyra/0.1 (mailto:{mailto})" if mailto else HttpPolicy.model_fields["user_agent"].default
    return HttpPolicy(api="OpenAlex", base_url=env.get("LYRA_OPENALEX_BASE_URL") or cfg.openalex_url,
                      requests_per_second=cfg.openalex_requests_per_second, user_agent=agent,
                      params={k: v for k, v in (("mailto", mailto), ("api_key", key)) if v}, **_common(cfg))


def open_sources(cfg: SourcesSettings, cache_root: str | os.PathLike[str] | None,
                 env: Mapping[str, str] = os.environ,
                 transport: httpx.AsyncBaseTransport | None = None) -> list[AcademicSource]:
    """Semantic Scholar and OpenAlex clients; close them with ``aclose()`` (or ``LiteratureSources.academic``)."""
    ttl = cfg.cache_ttl_days * 86400 or None

    def cache(name: str) -> HttpCache | None:
        return HttpCache(Path(cache_root) / name, ttl) if cfg.cache and cache_root is not None else None

    return [
        SemanticScholarClient(ApiClient(s2_policy(cfg, env), cache("s2"), transport)),
        OpenAlexClient(ApiClient(openalex_policy(cfg, env), cache("openalex"), transport)),
    ]
