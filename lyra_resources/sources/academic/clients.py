"""Build the live clients of every registered source (``registry``) from settings and the
environment, and probe whether their APIs can be reached. Each source's module says which
settings keys and environment variables its policy reads.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from lyra_resources.settings.services import SourcesSettings
from lyra_resources.sources.academic.base import AcademicSource
from lyra_resources.sources.academic.cache import HttpCache
from lyra_resources.sources.academic.policy import UNREACHABLE, ApiClient, HttpPolicy
from lyra_resources.sources.academic.registry import academic_sources


def open_sources(
    cfg: SourcesSettings,
    cache_root: str | os.PathLike[str] | None,
    env: Mapping[str, str] | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> list[AcademicSource]:
    """A client for every registered source, in the registry's order; close them with ``aclose()``
    (or ``LiteratureSources.academic``)."""
    ttl = cfg.cache_ttl_days * 86400 or None

    def cache(name: str) -> HttpCache | None:
        return HttpCache(Path(cache_root) / name, ttl) if cfg.cache and cache_root is not None else None

    return [
        spec.client(ApiClient(spec.policy(cfg, env), cache(spec.name), transport))
        for spec in academic_sources()
    ]


def _probe(policy: HttpPolicy) -> str | None:
    """Why no connection can be made to the API (the wording ApiClient uses), or None when one can.
    Any answer, even an error status or a slow one, means the network is there."""
    try:
        with httpx.Client(
            timeout=httpx.Timeout(policy.connect_timeout_s), headers={"User-Agent": policy.user_agent}
        ) as client:
            client.head(policy.base_url)
    except UNREACHABLE as exc:
        return f"cannot connect to {httpx.URL(policy.base_url).host} ({type(exc).__name__}: {exc or 'no detail'})"
    except httpx.HTTPError:
        return None
    return None


def unreachable_apis(
    cfg: SourcesSettings, cache_root: str | os.PathLike[str] | None, env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """API name → why, for each live API that cannot be reached now and has no cached answer to
    replay (a cached re-run works offline, so an API with answers on disk is not counted)."""
    policies = {spec.name: spec.policy(cfg, env) for spec in academic_sources()}

    def cached(name: str) -> bool:
        folder = Path(cache_root) / name if cfg.cache and cache_root is not None else None
        return folder is not None and folder.is_dir() and any(folder.rglob("*.json"))

    asked = {name: policy for name, policy in policies.items() if not cached(name)}
    with ThreadPoolExecutor(
        max_workers=max(1, len(asked))
    ) as pool:  # a dead resolver can take seconds per name
        reasons = dict(zip(asked, pool.map(_probe, asked.values()), strict=True))
    return {asked[name].api: reason for name, reason in reasons.items() if reason}
