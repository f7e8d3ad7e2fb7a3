"""The local corpus: papers read from files on disk, searched offline with BM25.

A corpus path is one file or a directory (every supported file inside, recursively, in sorted
order, within the limits ``lyra_resources.corpus.discovery`` applies). Each file is read by
``lyra_resources.corpus.bibtex_files`` (BibTeX) or ``lyra_resources.corpus.json_files`` (OpenAlex, Semantic
Scholar, SciFact or BEIR, detected from its content); what cannot be read is reported as a
``SourceIssue``, never skipped silently.

The parsed records and the BM25 index are pickled under ``cache_dir/<fingerprint>/`` and reused
while no file changes (the fingerprint hashes each file's path, size and mtime).
"""

from __future__ import annotations

import hashlib
import logging
import pickle
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lyra_core.bm25 import Bm25Index
from lyra_core.identifiers import normalize_arxiv_id, normalize_doi, normalize_pmid
from lyra_core.papers import PaperRecord
from lyra_core.text import index_terms
from lyra_resources.corpus.bibtex_files import load_bibtex_file
from lyra_resources.corpus.discovery import BIBTEX_SUFFIXES, WANTED, CorpusError, Discovery, Skipped, discover
from lyra_resources.corpus.json_files import load_json_file, openalex_work_id
from lyra_resources.corpus.records import SOURCE, FileResult, source_issue
from lyra_resources.files import write_cache_file
from lyra_resources.settings.services import CorpusFileSettings
from lyra_resources.sources.providers import SourceIssue

logger = logging.getLogger(__name__)

# Bump when the parsing or the pickled layout changes, so old caches are not reused.
INDEX_FORMAT_VERSION = 5  # 5: records with lone surrogates refused; BibTeX @string and # resolved
_INDEX_FILE = "index.pkl"


# --------------------------------------------------------------------------- files & fingerprint


def discover_files(path: str | Path, limits: CorpusFileSettings | None = None) -> list[Path]:
    """The supported files a corpus path names, resolved and sorted; CorpusError if none."""
    return _usable(discover(path, limits))


def _usable(found: Discovery) -> list[Path]:
    if not found.files:
        skipped = (
            f"; {len(found.skipped)} left out, e.g. {found.skipped[0].path}: {found.skipped[0].reason}"
            if found.skipped
            else ""
        )
        raise CorpusError(f"no corpus files ({WANTED}) found under directory {found.root}{skipped}")
    return found.files


def fingerprint(files: list[Path]) -> str:
    """Hash of each file's resolved path, size and mtime_ns, plus the index format version."""
    digest = hashlib.sha256(f"lyra-corpus-v{INDEX_FORMAT_VERSION}".encode())
    for file in files:
        stat = file.stat()
        digest.update(f"\0{file}\0{stat.st_size}\0{stat.st_mtime_ns}".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:32]


# --------------------------------------------------------------------------- index


def _paper_text(record: PaperRecord) -> str:
    return f"{record.title} {record.abstract or ''}"


def document_text(record: PaperRecord) -> str:
    """A paper as one text for embedding and reranking: ``Title. Abstract``."""
    return f"{record.title}. {record.abstract or ''}".strip()


def _build_bm25(records: list[PaperRecord]) -> Bm25Index | None:
    tokens = [index_terms(_paper_text(r)) for r in records]
    if not any(tokens):  # rank_bm25 divides by the corpus size and the token count
        return None
    return Bm25Index(tokens)


@dataclass
class _IndexPayload:
    """What the cache holds; the fingerprint and version guard against a stale or foreign file."""

    version: int
    fingerprint: str
    files: list[Path]
    records: list[PaperRecord]
    issues: list[SourceIssue]
    shapes: dict[str, str]  # file → detected shape
    bm25: Bm25Index | None
    repairs: dict[str, list[int]] = field(default_factory=dict)  # file → lines read as Windows-1252


def load_file(path: Path) -> FileResult:
    """Records and issues of one corpus file, its shape detected from its content."""
    if path.suffix.lower() in BIBTEX_SUFFIXES:
        return load_bibtex_file(path)
    return load_json_file(path)


def _build(files: list[Path], key: str) -> _IndexPayload:
    records: list[PaperRecord] = []
    issues: list[SourceIssue] = []
    shapes: dict[str, str] = {}
    first_seen: dict[str, str] = {}
    repairs: dict[str, list[int]] = {}
    for file in files:
        result = load_file(file)
        shapes[str(file)] = result.shape.value if result.shape else "unknown"
        issues.extend(result.issues)
        if result.repaired:
            repairs[str(file)] = result.repaired
        for location, record in result.records:
            if record.source_id in first_seen:
                kept = first_seen[record.source_id]
                issues.append(
                    source_issue(location, f"duplicate id {record.source_id} (kept the one at {kept})")
                )
                continue
            first_seen[record.source_id] = location
            records.append(record)
    return _IndexPayload(
        INDEX_FORMAT_VERSION, key, files, records, issues, shapes, _build_bm25(records), repairs
    )


def _read_cache(target: Path, key: str) -> _IndexPayload | None:
    if not target.is_file():
        return None
    try:
        with target.open("rb") as fh:
            payload = pickle.load(fh)
    except Exception as err:  # a truncated or foreign file: rebuild rather than fail the run
        logger.warning("ignoring unreadable corpus cache %s: %s", target, err)
        return None
    if not (
        isinstance(payload, _IndexPayload)
        and payload.version == INDEX_FORMAT_VERSION
        and payload.fingerprint == key
    ):
        logger.warning("ignoring corpus cache %s: it does not match this corpus", target)
        return None
    return payload


def _write_cache(target: Path, payload: _IndexPayload) -> None:
    """Write to a temp file and rename, so a concurrent reader never sees half a cache."""
    write_cache_file(target, pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL), "corpus cache")


_ID_PREFIX = re.compile(r"^\s*(doi|pmid|arxiv)\s*:\s*(.+)$", re.IGNORECASE)


class LocalCorpus:
    """Records of a local corpus and their BM25 index. Build with :meth:`open`."""

    def __init__(
        self,
        path: Path,
        payload: _IndexPayload,
        *,
        loaded_from_cache: bool,
        skipped: list[Skipped] | None = None,
        limits: CorpusFileSettings | None = None,
    ) -> None:
        self.path = path
        self.limits = limits  # the staleness check rediscovers the files within the same limits
        self.fingerprint = payload.fingerprint
        self.files: list[Path] = list(payload.files)
        self.records: list[PaperRecord] = payload.records
        # files the folder held but that were not read (symlinks out of it, over the size limit) come first
        self.issues: list[SourceIssue] = [
            source_issue(f"{s.path}:0", f"not read: {s.reason}") for s in skipped or []
        ]
        self.issues += payload.issues
        self.skipped: list[Skipped] = list(skipped or [])
        self.repairs: dict[str, list[int]] = dict(payload.repairs)
        self.shapes: dict[str, str] = dict(payload.shapes)
        self.loaded_from_cache = loaded_from_cache
        self._bm25 = payload.bm25
        self._by_id = {r.source_id: i for i, r in enumerate(self.records)}
        self._by_doi: dict[str, int] = {}
        self._by_pmid: dict[str, int] = {}
        self._by_arxiv: dict[str, int] = {}
        for i, r in enumerate(self.records):  # first record wins, as in search order
            if r.doi:
                self._by_doi.setdefault(r.doi, i)
            if r.pmid:
                self._by_pmid.setdefault(r.pmid, i)
            if r.arxiv_id:
                self._by_arxiv.setdefault(r.arxiv_id, i)

    @classmethod
    def open(
        cls, path: str | Path, cache_dir: str | Path | None = None, limits: CorpusFileSettings | None = None
    ) -> LocalCorpus:
        """Load the corpus at ``path``, from ``cache_dir`` when its files have not changed; ``limits``
        bound the files a folder may pull in (default: the default limits).

        Raises CorpusError when the path does not exist or holds no supported file.
        """
        started = time.perf_counter()
        root = Path(path).expanduser()
        found = discover(root, limits)
        files = _usable(found)
        key = fingerprint(files)
        target = Path(cache_dir) / key / _INDEX_FILE if cache_dir is not None else None
        payload = _read_cache(target, key) if target else None
        cached = payload is not None
        if payload is None:
            payload = _build(files, key)
            if target and payload.records:  # a corpus with no paper is refused by the task's input check
                _write_cache(target, payload)
        corpus = cls(root.resolve(), payload, loaded_from_cache=cached, skipped=found.skipped, limits=limits)
        logger.info(
            "local corpus %s: %d papers, %d issues, %d files (%s) in %.2fs",
            root,
            len(corpus),
            len(corpus.issues),
            len(files),
            "cached" if cached else "built",
            time.perf_counter() - started,
        )
        if not corpus.records:  # info, not a warning: the task's input check says it to the user, in one line
            logger.info("local corpus %s holds no readable papers; see its issues", root)
        return corpus

    def repaired_lines(self) -> int:
        """Lines that were not UTF-8 and were read as Windows-1252 / Latin-1."""
        return sum(len(lines) for lines in self.repairs.values())

    def repair_note(self) -> str | None:
        """One line naming the repaired lines, or None when every line was UTF-8."""
        if not self.repairs:
            return None
        file, lines = next(iter(self.repairs.items()))
        shown = ", ".join(str(n) for n in lines[:5]) + (" …" if len(lines) > 5 else "")
        others = f" (and lines of {len(self.repairs) - 1} other file(s))" if len(self.repairs) > 1 else ""
        return (
            f"{self.repaired_lines():,} line(s) of corpus {self.path} were not UTF-8 and were read as "
            f"Windows-1252/Latin-1: {file} lines {shown}{others}"
        )

    def __len__(self) -> int:
        return len(self.records)

    def is_stale(self) -> bool:
        """True when a file was added, removed or changed since this corpus was loaded."""
        try:
            return fingerprint(discover_files(self.path, self.limits)) != self.fingerprint
        except (CorpusError, OSError):
            return True

    def search(self, query: str, limit: int = 50) -> list[PaperRecord]:
        """Best-first records by BM25 over title + abstract; ties keep file order; no zero scores."""
        if limit <= 0:
            return []
        scores = self.bm25_scores(query)
        hits = np.flatnonzero(scores > 0)
        if hits.size > limit:
            # keep every hit tied with the limit-th score, so ties resolve by order below
            kth = np.partition(scores[hits], hits.size - limit)[hits.size - limit]
            hits = hits[scores[hits] >= kth]
        order = hits[np.lexsort((hits, -scores[hits]))][:limit]
        return [self.records[i].model_copy(update={"score": float(scores[i])}) for i in order]

    def bm25_scores(self, query: str) -> np.ndarray:
        """BM25 of ``query`` for every record, in record order (all zero when nothing can match)."""
        tokens = index_terms(query)
        if self._bm25 is None or not tokens:
            return np.zeros(len(self.records))
        return np.asarray(self._bm25.get_scores(tokens), dtype=float)

    def get(self, paper_id: str) -> PaperRecord | None:
        """By source id, or ``DOI:…`` / ``PMID:…`` / ``ARXIV:…`` in any spelling the normalisers accept."""
        index = self._find(paper_id)
        return self.records[index].model_copy() if index is not None else None

    def _find(self, paper_id: str) -> int | None:
        text = paper_id.strip()
        if text in self._by_id:
            return self._by_id[text]
        match = _ID_PREFIX.match(text)
        if match:
            kind, value = match.group(1).lower(), match.group(2)
            if kind == "doi":
                return self._by_doi.get(normalize_doi(value) or "")
            if kind == "pmid":
                return self._by_pmid.get(normalize_pmid(value) or "")
            return self._by_arxiv.get(normalize_arxiv_id(value) or "")
        if (work := openalex_work_id(text)) and work in self._by_id:
            return self._by_id[work]
        if doi := normalize_doi(text):  # a bare DOI or a doi.org link
            return self._by_doi.get(doi)
        if arxiv := normalize_arxiv_id(text):
            return self._by_arxiv.get(arxiv)
        return None


class LocalCorpusProvider:
    """PaperProvider over a LocalCorpus: the embedded, offline literature source."""

    name = SOURCE

    def __init__(self, corpus: LocalCorpus) -> None:
        self.corpus = corpus

    @classmethod
    def open(cls, path: str | Path, cache_dir: str | Path | None = None) -> LocalCorpusProvider:
        return cls(LocalCorpus.open(path, cache_dir))

    @property
    def issues(self) -> list[SourceIssue]:
        return self.corpus.issues

    async def search(self, query: str, limit: int = 50) -> list[PaperRecord]:
        # BM25 over a few thousand papers takes milliseconds: not worth a worker thread
        return self.corpus.search(query, limit)

    async def get_paper(self, paper_id: str) -> PaperRecord | None:
        return self.corpus.get(paper_id)
