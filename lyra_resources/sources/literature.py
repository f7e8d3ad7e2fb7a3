"""The literature sources a task searches, as one Dagster resource: its local corpora, and the
live academic APIs (every source in ``academic.registry``) when ``sources.live`` lets them in."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Sequence
from itertools import zip_longest
from pathlib import Path

import httpx
from dagster import ConfigurableResource
from pydantic import BaseModel, Field

from lyra_core.claim_inputs import ClaimInput
from lyra_core.papers import PaperRecord
from lyra_resources.corpus.local_corpus import LocalCorpus, LocalCorpusProvider
from lyra_resources.dagster_resources import SECTION_CONFIGS, section_config
from lyra_resources.environment import LIVE_ENV, read_environment
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.settings.services import SourcesSettings
from lyra_resources.sources.academic import AcademicSource, open_sources
from lyra_resources.sources.providers import PaperProvider

OFFLINE_HINT = "pass --corpus PATH or set `corpus` in config/settings.yaml to work from local files"

# Opened corpora are kept per process: reopening means re-reading the cached index from disk.
_open_corpora: dict[tuple[str, str], LocalCorpus] = {}
_open_lock = threading.Lock()


class SourcePlan(BaseModel):
    """Which sources a task uses, and why (recorded in the assets' metadata)."""

    corpus: list[str] = Field(
        description="local corpus paths: the task's --corpus, else the settings' corpus"
    )
    live: bool = Field(description="whether the live academic APIs are asked")
    reason: str


def live_mode(sources: SourcesSettings) -> str:
    """``sources.live``, overridden by ``$LYRA_SOURCES_LIVE`` (auto | on | off)."""
    mode = (read_environment().sources_live or sources.live).strip().lower()
    if mode not in ("auto", "on", "off"):
        raise ValueError(f"${LIVE_ENV} must be auto, on or off, not {mode!r}")
    return mode


class UnknownPapersError(ValueError):
    """Claims name papers that none of the task's corpora holds; the message lists them."""


class LiteratureSources(ConfigurableResource):
    """Builds the providers for a task: its local corpora, and the live APIs per ``plan``."""

    cache_dir: str = Field(description="where corpus indexes and HTTP answers are cached")
    default_corpus: list[str] = Field(default_factory=list, description="corpora used when a task names none")
    sources: SECTION_CONFIGS["sources"] = Field(
        default_factory=SECTION_CONFIGS["sources"],  # type: ignore[valid-type]
        description="the settings' sources section",
    )
    corpus_files: SECTION_CONFIGS["corpus_files"] = Field(  # type: ignore[valid-type]
        default_factory=SECTION_CONFIGS["corpus_files"], description="what one corpus path may pull in"
    )

    @classmethod
    def configured(cls, cache_dir: str | Path, settings: LyraSettings) -> LiteratureSources:
        """The sources ``settings`` describe, caching under ``cache_dir``."""
        return cls(
            cache_dir=str(cache_dir),
            default_corpus=settings.corpus,
            sources=section_config(settings.sources, "sources"),
            corpus_files=section_config(settings.corpus_files, "corpus_files"),
        )

    @property
    def corpus_cache_dir(self) -> Path:
        return Path(self.cache_dir) / "corpus"

    def corpus(self, path: str) -> LocalCorpus:
        resolved = str(Path(path).expanduser().resolve())
        key = (resolved, self.cache_dir)
        with _open_lock:
            corpus = _open_corpora.get(key)
            if corpus is None or corpus.is_stale():
                corpus = LocalCorpus.open(resolved, cache_dir=self.corpus_cache_dir, limits=self.corpus_files)
                _open_corpora[key] = corpus
            return corpus

    def providers(self, corpus_paths: list[str]) -> list[PaperProvider]:
        """The local corpus providers of a task (its own paths, else the default corpus)."""
        paths = corpus_paths or self.default_corpus
        return [LocalCorpusProvider(self.corpus(p)) for p in paths]

    def claim_papers(
        self, corpus_paths: list[str], claims: Sequence[ClaimInput], per_claim: int
    ) -> list[list[PaperRecord]]:
        """Each claim's papers, best first: those it names, looked up by id in the corpora (the
        corpus's own id, or a DOI / PMID / arXiv id), else the corpora's top ``per_claim`` BM25
        hits for its text, round-robin across corpora. Raises ``UnknownPapersError`` listing, per
        claim, every id no corpus holds."""
        corpora = [self.corpus(p) for p in corpus_paths or self.default_corpus]
        out: list[list[PaperRecord]] = []
        unknown: list[str] = []
        for claim in claims:
            if claim.papers is None:
                hits = [c.search(claim.claim, per_claim) for c in corpora]
                out.append([r for depth in zip_longest(*hits) for r in depth if r is not None][:per_claim])
                continue
            found = {
                pid: next((r for c in corpora if (r := c.get(pid)) is not None), None) for pid in claim.papers
            }
            missing = [pid for pid, record in found.items() if record is None]
            if missing:
                unknown.append(f"claim {claim.id}: {', '.join(missing)}")
            out.append([r for r in found.values() if r is not None])
        if unknown:
            shown = "; ".join(unknown[:5]) + (
                f"; and {len(unknown) - 5} more claims" if len(unknown) > 5 else ""
            )
            raise UnknownPapersError(
                f"paper ids not in the corpus: {shown} (use the ids the corpus file gives: SciFact doc_id, BEIR _id, "
                "BibTeX key, or a DOI / PMID / arXiv id)"
            )
        return out

    def plan(self, task_corpus: list[str]) -> SourcePlan:
        """auto: live APIs only when the task names no --corpus (a configured default corpus then
        joins them, and carries the task alone when there is no network); on: always; off: never."""
        mode = live_mode(self.sources)
        corpus = list(task_corpus or self.default_corpus)
        if mode == "off":
            return SourcePlan(corpus=corpus, live=False, reason="live sources off (sources.live: off)")
        if mode == "on":
            return SourcePlan(corpus=corpus, live=True, reason="live sources on (sources.live: on)")
        if task_corpus:
            return SourcePlan(
                corpus=corpus,
                live=False,
                reason="the task has a --corpus (sources.live: auto; set it to on to add the live APIs)",
            )
        return SourcePlan(corpus=corpus, live=True, reason="the task names no --corpus (sources.live: auto)")

    @property
    def http_cache_dir(self) -> Path:
        return Path(self.cache_dir) / "http"

    @contextlib.asynccontextmanager
    async def academic(
        self, transport: httpx.AsyncBaseTransport | None = None
    ) -> AsyncIterator[list[AcademicSource]]:
        """A client for every registered live source, for one event loop, closed on exit."""
        sources = open_sources(self.sources, self.http_cache_dir, transport=transport)
        try:
            yield sources
        finally:
            for source in sources:
                await source.aclose()
