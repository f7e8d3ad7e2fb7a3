"""The live academic sources Lyra asks, by name, in the order it asks them.

Each source is one module that declares ``SOURCE_SPEC``, an :class:`AcademicSourceSpec`: its name
(the prefix of its records' ids, ``s2:…``, and its cache folder), the settings keys and
environment variables it reads, its HTTP policy (base URL, rate limit, credentials) and the client
class that speaks to it. Adding a source is that module and its line in ``BUILT_IN``; opening the
clients, probing the network before a task and picking the sources a paper can be followed in all
ask this registry, never a source by name. ``register`` adds a source while Lyra runs (a plugin, a
test) through the same paths.

The built-in modules are imported on first use, not here: they import this module for
``AcademicSourceSpec``.
"""

from __future__ import annotations

import functools
import importlib
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from lyra_resources.settings.services import SourcesSettings
from lyra_resources.sources.academic.base import AcademicSource
from lyra_resources.sources.academic.policy import ApiClient, HttpPolicy

# one line per source, in the order sources are asked and their results interleaved
BUILT_IN: tuple[str, ...] = (
    "lyra_resources.sources.academic.semantic_scholar",
    "lyra_resources.sources.academic.openalex",
)

_NAME = re.compile(r"[a-z][a-z0-9_]*")
# names a live source cannot take: the local corpus's record prefix
_RESERVED = frozenset({"local"})


@dataclass(frozen=True)
class AcademicSourceSpec:
    """What Lyra needs to know to open one live academic API."""

    name: str  # records' id prefix (``name:id``), cache folder, key of ``records_per_source``
    policy: Callable[
        [SourcesSettings, Mapping[str, str] | None], HttpPolicy
    ]  # (settings section, environment)
    client: Callable[[ApiClient], AcademicSource]  # its ``name`` must be the spec's
    settings_keys: tuple[str, ...] = ()  # keys of the settings' `sources` section only this source reads
    env_keys: tuple[str, ...] = ()  # environment variables its policy reads

    def __post_init__(self) -> None:
        if not _NAME.fullmatch(self.name) or self.name in _RESERVED:
            raise ValueError(
                f"a live source's name must be lower-case letters, digits and _ (and not "
                f"{', '.join(sorted(_RESERVED))}), not {self.name!r}"
            )


def shared_limits(cfg: SourcesSettings) -> dict[str, Any]:
    """The politeness every source takes from the settings: timeouts, attempts, backoff."""
    return {
        "connect_timeout_s": cfg.connect_timeout_s,
        "read_timeout_s": cfg.read_timeout_s,
        "max_attempts": cfg.max_attempts,
        "max_retry_wait_s": cfg.max_retry_wait_s,
        "backoff_s": cfg.backoff_s,
    }


_added: dict[str, AcademicSourceSpec] = {}
_lock = threading.Lock()


@functools.cache
def _built_in() -> tuple[AcademicSourceSpec, ...]:
    return tuple(importlib.import_module(module).SOURCE_SPEC for module in BUILT_IN)


def academic_sources() -> list[AcademicSourceSpec]:
    """Every registered live source: the built-in ones, then those ``register``ed, in that order."""
    with _lock:
        return [*_built_in(), *_added.values()]


def source_names() -> list[str]:
    """The registered live sources' names, in the order they are asked."""
    return [spec.name for spec in academic_sources()]


def register(spec: AcademicSourceSpec) -> AcademicSourceSpec:
    """Add a live source after the registered ones; ValueError when its name is taken."""
    with _lock:
        if spec.name in {s.name for s in (*_built_in(), *_added.values())}:
            raise ValueError(f"a live source named {spec.name!r} is registered already")
        _added[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Remove a source ``register`` added (built-in sources stay); KeyError for any other name."""
    with _lock:
        if name not in _added:
            raise KeyError(f"no live source named {name!r} was registered at run time")
        del _added[name]
