"""Build the live clients from settings and the environment.

Environment (wins over ``config/settings.yaml``): ``LYRA_S2_BASE_URL``, ``LYRA_OPENALEX_BASE_URL``
(proxies, mirrors, tests), ``S2_API_KEY`` (sent as ``x-api-key``), ``LYRA_MAILTO`` (OpenAlex's
polite pool), ``OPENALEX_API_KEY`` (sent as ``api_key``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from lyra_resources.environment import read_environment
from lyra_resources.sources.academic.base import AcademicSource
from lyra_resources.sources.academic.cache import HttpCache
from lyra_resources.sources.academic.openalex import OpenAlexClient
from lyra_resources.sources.academic.policy import UNREACHABLE, ApiClient, HttpPolicy
from lyra_resources.sources.academic.semantic_scholar import SemanticScholarClient
from lyra_resources.settings import SourcesSettings


def _common(cfg: SourcesSettings) -> dict:
    return {"connect_timeout_s": cfg.connect_timeout_s, "read_timeout_s": cfg.read_timeout_s,
            "max_attempts": cfg.max_attempts, "max_retry_wait_s": cfg.max_retry_wait_s, "backoff_s": cfg.backoff_s}


def s2_policy(cfg: SourcesSettings, env: Mapping[str, str] | None = None) -> HttpPolicy:
    variables = read_environment(env)
    key = (variables.s2_api_key or "").strip()
    return HttpPolicy(api="Semantic Scholar", base_url=variables.s2_base_url or cfg.semantic_scholar_url,
                      requests_per_second=cfg.s2_requests_per_second,
                      headers={"x-api-key": key} if key else {}, **_common(cfg))


def openalex_policy(cfg: SourcesSettings, env: Mapping[str, str] | None = None) -> HttpPolicy:
    variables = read_environment(env)
    mailto = (variables.mailto or cfg.mailto).strip()
    key = (variables.openalex_api_key or "").strip()
    agent = f"lyra/0.1 (mailto:{mailto})" if mailto else HttpPolicy.model_fields["user_agent"].default
    return HttpPolicy(api="OpenAlex", base_url=variables.openalex_base_url or cfg.openalex_url,
                      requests_per_second=cfg.openalex_requests_per_second, user_agent=agent,
                      params={k: v for k, v in (("mailto", mailto), ("api_key", key)) if v}, **_common(cfg))


def open_sources(cfg: SourcesSettings, cache_root: str | os.PathLike[str] | None,
                 env: Mapping[str, str] | None = None,
                 transport: httpx.AsyncBaseTransport | None = None) -> list[AcademicSource]:
    """Semantic Scholar and OpenAlex clients; close them with ``aclose()`` (or ``LiteratureSources.academic``)."""
    ttl = cfg.cache_ttl_days * 86400 or None

    def cache(name: str) -> HttpCache | None:
        return HttpCache(Path(cache_root) / name, ttl) if cfg.cache and cache_root is not None else None

    return [
        SemanticScholarClient(ApiClient(s2_policy(cfg, env), cache("s2"), transport)),
        OpenAlexClient(ApiClient(openalex_policy(cfg, env), cache("openalex"), transport)),
    ]


def _probe(policy: HttpPolicy) -> str | None:
    """Why no connection can be made to the API (the wording ApiClient uses), or None when one can.
    Any answer, even an error status or a slow one, means the network is there."""
    try:
        with httpx.Client(timeout=httpx.Timeout(policy.connect_timeout_s),
                          headers={"User-Agent": policy.user_agent}) as client:
            client.head(policy.base_url)
    except UNREACHABLE as exc:
        return f"cannot connect to {httpx.URL(policy.base_url).host} ({type(exc).__name__}: {exc or 'no detail'})"
    except httpx.HTTPError:
        return None
    return None


def unreachable_apis(cfg: SourcesSettings, cache_root: str | os.PathLike[str] | None,
                     env: Mapping[str, str] | None = None) -> dict[str, str]:
    """API name → why, for each live API that cannot be reached now and has no cached answer to
    replay (a cached re-run works offline, so an API with answers on disk is not counted)."""
    policies = {"s2": s2_policy(cfg, env), "openalex": openalex_policy(cfg, env)}

    def cached(name: str) -> bool:
        folder = Path(cache_root) / name if cfg.cache and cache_root is not None else None
        return folder is not None and folder.is_dir() and any(folder.rglob("*.json"))

    asked = {name: policy for name, policy in policies.items() if not cached(name)}
    with ThreadPoolExecutor(max_workers=2) as pool:  # a dead resolver can take seconds per name
        reasons = dict(zip(asked, pool.map(_probe, asked.values()), strict=True))
    return {asked[name].api: reason for name, reason in reasons.items() if reason}
