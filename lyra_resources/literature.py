"""The literature sources a task searches, as one Dagster resource."""

from __future__ import annotations

import threading
from pathlib import Path

from dagster import ConfigurableResource
from pydantic import Field

from lyra_resources.corpus import LocalCorpus, LocalCorpusProvider
from lyra_resources.providers import PaperProvider

# Opened corpora are kept per process: reopening means re-reading the cached index from disk.
_open_corpora: dict[tuple[str, str], LocalCorpus] = {}
_open_lock = threading.Lock()


class LiteratureSources(ConfigurableResource):
    """Builds the providers for a task: its local corpora now, the live APIs when configured."""

    cache_dir: str = Field(description="where corpus indexes are cached")
    default_corpus: list[str] = Field(default_factory=list, description="corpora used when a task names none")

    def corpus(self, path: str) -> LocalCorpus:
        resolved = str(Path(path).expanduser().resolve())
        key = (resolved, self.cache_dir)
        with _open_lock:
            corpus = _open_corpora.get(key)
            if corpus is None or corpus.is_stale():
                corpus = LocalCorpus.open(resolved, cache_dir=Path(self.cache_dir) / "corpus")
                _open_corpora[key] = corpus
            return corpus

    def providers(self, corpus_paths: list[str]) -> list[PaperProvider]:
        paths = corpus_paths or self.default_corpus
        return [LocalCorpusProvider(self.corpus(p)) for p in paths]
