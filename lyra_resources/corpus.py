"""The local corpus: papers read from files on disk, searched offline with BM25.

A corpus path is one file or a directory (every supported file inside, recursively, in sorted
order, within the limits ``lyra_resources.corpus_files`` applies). Each file's shape is detected from its first recognisable record:

- OpenAlex works (``id`` = ``https://openalex.org/W…``), JSONL or JSON (one work, a list, or a
  ``results`` page);
- Semantic Scholar papers (``paperId``), JSONL or JSON (one paper, a list, or a ``data`` page);
- SciFact corpus lines (``doc_id`` + ``abstract`` as a list of sentences);
- BEIR corpus lines (``_id`` + ``title``/``text``);
- BibTeX (``.bib``) exports of reference managers.

Recorded API responses that wrap one of these in ``{"uri"|"url": …, "body": …}`` load too.
Anything unreadable is reported as a ``SourceIssue`` (file:line and why), never skipped silently;
lines that were not UTF-8 and were read as Windows-1252 are listed in ``repairs``.

The parsed records and the BM25 index are pickled under ``cache_dir/<fingerprint>/`` and reused
while no file changes (the fingerprint hashes each file's path, size and mtime).
"""

from __future__ import annotations

import hashlib
import json
import logging
import pickle
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import bibtexparser
import numpy as np
from bibtexparser.model import ParsingFailedBlock
from pydantic import ValidationError
from pylatexenc.latex2text import LatexNodes2Text  # comes with bibtexparser v2, which uses it too

from lyra_core.bm25 import Bm25Index
from lyra_core.identifiers import (
    find_arxiv_ids,
    normalize_arxiv_id,
    normalize_doi,
    normalize_pmid,
)
from lyra_core.papers import PaperRecord
from lyra_core.text import index_terms
from lyra_resources.corpus_files import (
    BIBTEX_SUFFIXES,
    WANTED,
    CorpusError,
    Discovery,
    Skipped,
    decode,
    discover,
)
from lyra_resources.files import write_cache_file
from lyra_resources.providers import SourceIssue

logger = logging.getLogger(__name__)

SOURCE = "local"
# Bump when the parsing or the pickled layout changes, so old caches are not reused.
INDEX_FORMAT_VERSION = 4  # 4: BM25 over index_terms (scientific tokens, stemmed)
_INDEX_FILE = "index.pkl"
_LATEX = LatexNodes2Text()


class CorpusShape(str, Enum):
    OPENALEX = "openalex"
    S2 = "s2"
    SCIFACT = "scifact"
    BEIR = "beir"
    BIBTEX = "bibtex"


# --------------------------------------------------------------------------- files & fingerprint


def discover_files(path: str | Path) -> list[Path]:
    """The supported files a corpus path names, resolved and sorted; CorpusError if none."""
    return _usable(discover(path))


def _usable(found: Discovery) -> list[Path]:
    if not found.files:
        skipped = (f"; {len(found.skipped)} left out, e.g. {found.skipped[0].path}: {found.skipped[0].reason}"
                   if found.skipped else "")
        raise CorpusError(f"no corpus files ({WANTED}) found under directory {found.root}{skipped}")
    return found.files


def fingerprint(files: list[Path]) -> str:
    """Hash of each file's resolved path, size and mtime_ns, plus the index format version."""
    digest = hashlib.sha256(f"lyra-corpus-v{INDEX_FORMAT_VERSION}".encode())
    for file in files:
        stat = file.stat()
        digest.update(f"\0{file}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:32]


# --------------------------------------------------------------------------- record mapping


def _issue(location: str, reason: str) -> SourceIssue:
    return SourceIssue(source=SOURCE, location=location, reason=reason)


def _str(value: Any) -> str | None:
    """Stripped text, or None for null/blank/non-scalar values."""
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def _dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a dict, else {} (real records put null at any level)."""
    return value if isinstance(value, dict) else {}


def _year(value: Any) -> int | None:
    """A plausible year from an int or text such as ``2019`` or ``2019-05-07``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 1000 <= value <= 2999 else None
    match = re.search(r"\b(1\d{3}|2\d{3})\b", value) if isinstance(value, str) else None
    return int(match.group(1)) if match else None


def _arxiv_from_doi(doi: str | None) -> str | None:
    """arXiv's own DOIs (``10.48550/arXiv.1706.03762``) name the arXiv id."""
    normal = normalize_doi(doi)
    if normal and normal.startswith("10.48550/arxiv."):
        return normalize_arxiv_id(normal.removeprefix("10.48550/arxiv."))
    return None


def rebuild_abstract(inverted_index: Any) -> str | None:
    """OpenAlex ``abstract_inverted_index`` (word → positions) back to running text."""
    if not isinstance(inverted_index, dict):
        return None
    placed = [
        (pos, word)
        for word, positions in inverted_index.items()
        if isinstance(positions, list)
        for pos in positions
        if isinstance(pos, int)
    ]
    placed.sort()
    return " ".join(word for _, word in placed) or None


def _openalex_id(value: Any) -> str | None:
    text = _str(value)
    match = re.fullmatch(r"(?:https?://openalex\.org/)?(W\d+)", text or "", re.IGNORECASE)
    return match.group(1).upper() if match else None


def _map_openalex(item: dict[str, Any]) -> dict[str, Any]:
    ids = _dict(item.get("ids"))
    primary = _dict(item.get("primary_location"))
    # ``host_venue`` is the pre-2023 schema (still in older dumps)
    venue = _str(_dict(primary.get("source")).get("display_name")) or _str(
        _dict(item.get("host_venue")).get("display_name")
    )
    doi = _str(item.get("doi")) or _str(ids.get("doi"))
    landing = [_str(_dict(loc).get("landing_page_url")) or "" for loc in item.get("locations") or []]
    arxiv = _arxiv_from_doi(doi) or next(iter(find_arxiv_ids(" ".join(landing))), None)
    authors = [
        _str(_dict(a.get("author")).get("display_name")) or _str(a.get("raw_author_name"))
        for a in item.get("authorships") or []
        if isinstance(a, dict)
    ]
    return {
        "source_id": _openalex_id(item.get("id")),
        "title": _str(item.get("display_name")) or _str(item.get("title")),
        "abstract": rebuild_abstract(item.get("abstract_inverted_index")),
        "doi": doi,
        "pmid": _str(ids.get("pmid")),
        "arxiv_id": arxiv,
        "year": _year(item.get("publication_year")) or _year(item.get("publication_date")),
        "venue": venue,
        "url": (f"https://doi.org/{normalize_doi(doi)}" if normalize_doi(doi) else None)
        or _str(primary.get("landing_page_url"))
        or _str(item.get("id")),
        "authors": [a for a in authors if a],
    }


def _map_s2(item: dict[str, Any]) -> dict[str, Any]:
    ext = _dict(item.get("externalIds"))
    doi = _str(ext.get("DOI"))
    venue = (
        _str(item.get("venue"))
        or _str(_dict(item.get("publicationVenue")).get("name"))
        or _str(_dict(item.get("journal")).get("name"))
    )
    return {
        "source_id": _str(item.get("paperId")),
        "title": _str(item.get("title")),
        "abstract": _str(item.get("abstract")),
        "doi": doi,
        "pmid": _str(ext.get("PubMed")),
        "arxiv_id": _str(ext.get("ArXiv")) or _arxiv_from_doi(doi),
        "year": _year(item.get("year")) or _year(item.get("publicationDate")),
        "venue": venue,
        "url": _str(item.get("url")),
        "authors": [
            name for a in item.get("authors") or [] if isinstance(a, dict) and (name := _str(a.get("name")))
        ],
    }


def _map_scifact(item: dict[str, Any]) -> dict[str, Any]:
    sentences = item.get("abstract") or []
    return {
        "source_id": _str(item.get("doc_id")),
        "title": _str(item.get("title")),
        "abstract": " ".join(s.strip() for s in sentences if isinstance(s, str)) or None,
    }


def _map_beir(item: dict[str, Any]) -> dict[str, Any]:
    meta = _dict(item.get("metadata"))
    doi = _str(meta.get("doi"))
    return {
        "source_id": _str(item.get("_id")),
        "title": _str(item.get("title")),
        "abstract": _str(item.get("text")),
        "doi": doi,
        "pmid": _str(meta.get("pmid")) or _str(meta.get("pubmed_id")),
        "arxiv_id": _str(meta.get("arxiv_id")) or _arxiv_from_doi(doi),
        "year": _year(meta.get("year")),
        "url": _str(meta.get("url")),
    }


_MAPPERS: dict[CorpusShape, Callable[[dict[str, Any]], dict[str, Any]]] = {
    CorpusShape.OPENALEX: _map_openalex,
    CorpusShape.S2: _map_s2,
    CorpusShape.SCIFACT: _map_scifact,
    CorpusShape.BEIR: _map_beir,
}


def detect_shape(item: Any) -> CorpusShape | None:
    """Which JSON record shape ``item`` is in, or None when it is none of them."""
    if not isinstance(item, dict):
        return None
    if _openalex_id(item.get("id")):
        return CorpusShape.OPENALEX
    if "paperId" in item:
        return CorpusShape.S2
    if "doc_id" in item and isinstance(item.get("abstract"), list):
        return CorpusShape.SCIFACT
    if "_id" in item and ("text" in item or "title" in item):
        return CorpusShape.BEIR
    return None


def _make_record(fields: dict[str, Any]) -> PaperRecord | str:
    """A PaperRecord, or the reason the mapped fields cannot make one."""
    if not fields.get("source_id"):
        return "record has no id"
    if not fields.get("title") and not fields.get("abstract"):
        return f"record {fields['source_id']} has no title and no abstract"
    try:
        return PaperRecord(source=SOURCE, **{**fields, "title": fields.get("title") or ""})
    except ValidationError as err:
        return f"record {fields['source_id']} is invalid: {err.errors()[0]['msg']}"


# --------------------------------------------------------------------------- file readers


@dataclass
class _FileResult:
    shape: CorpusShape | None = None
    records: list[tuple[str, PaperRecord]] = field(default_factory=list)  # (location, record)
    issues: list[SourceIssue] = field(default_factory=list)
    repaired: list[int] = field(default_factory=list)  # lines read as Windows-1252, not UTF-8


def _read_text(path: Path, result: _FileResult) -> str | None:
    try:
        decoded = decode(path.read_bytes())
    except OSError as err:
        result.issues.append(_issue(f"{path}:0", f"file cannot be read: {err.strerror or err}"))
        return None
    if decoded.text is None:
        result.issues.append(_issue(f"{path}:{decoded.problem_line}", decoded.problem or "file is not text"))
        return None
    if not decoded.text.strip():
        result.issues.append(_issue(f"{path}:1", "file is empty"))
        return None
    result.repaired = decoded.repaired
    return decoded.text


def _json_values(path: Path, text: str, result: _FileResult) -> Iterator[tuple[int, Any]]:
    """(line, value) for a whole-file JSON document, else for each JSONL line."""
    try:
        yield 1, json.loads(text)
        return
    except json.JSONDecodeError as whole_err:
        first_error = whole_err
    start = len(result.issues)
    any_good = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as err:
            result.issues.append(_issue(f"{path}:{number}", f"invalid JSON: {err.msg} (column {err.colno})"))
            continue
        any_good = True
        yield number, value
    if not any_good and path.suffix.lower() == ".json":
        # a broken pretty-printed document: one issue where it breaks, not one per line
        del result.issues[start:]
        reason = f"invalid JSON: {first_error.msg} (column {first_error.colno})"
        result.issues.append(_issue(f"{path}:{first_error.lineno}", reason))


def _items(value: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    """Records inside one JSON value: itself, a list, an API page, or a recorded response."""
    if isinstance(value, dict) and "body" in value and ("uri" in value or "url" in value):
        body = value["body"]
        if isinstance(body, dict | list):
            yield from _items(body, f"{where}body.")
            return
    if isinstance(value, list):
        for i, item in enumerate(value):
            yield f"{where}[{i}]", item
        return
    if isinstance(value, dict) and detect_shape(value) is None:
        # OpenAlex list pages hold ``results``; S2 search and batch pages hold ``data``
        for key in ("results", "data"):
            if isinstance(value.get(key), list):
                for i, item in enumerate(value[key]):
                    yield f"{where}{key}[{i}]", item
                return
    yield where.rstrip("."), value


_JSON_SHAPES = ", ".join(s.value for s in CorpusShape if s is not CorpusShape.BIBTEX)


def _describe(item: Any) -> str:
    if isinstance(item, dict):
        keys = ", ".join(list(item)[:6])
        return f"object with keys {keys or '(none)'}"
    return type(item).__name__


def _load_json_file(path: Path) -> _FileResult:
    result = _FileResult()
    text = _read_text(path, result)
    if text is None:
        return result
    for line, value in _json_values(path, text, result):
        for where, item in _items(value):
            location = f"{path}:{line}"
            prefix = f"{where}: " if where else ""
            shape = detect_shape(item)
            if result.shape is None and shape is not None:
                result.shape = shape
            if shape is None:
                reason = f"unknown record shape ({_describe(item)}); expected one of {_JSON_SHAPES}"
                result.issues.append(_issue(location, prefix + reason))
                continue
            if shape is not result.shape:
                reason = f"{shape.value} record in a {result.shape.value} file"
                result.issues.append(_issue(location, prefix + reason))
                continue
            made = _make_record(_MAPPERS[shape](item))
            if isinstance(made, str):
                result.issues.append(_issue(location, prefix + made))
            else:
                result.records.append((location, made))
    return result


def _latex_to_text(value: str) -> str:
    """Decode LaTeX markup (braces, accents, ``\\&``) in a BibTeX field."""
    # exporters do not always escape %, which LaTeX would read as a comment eating the line
    value = re.sub(r"(?<!\\)%", r"\\%", value)
    try:
        text = _LATEX.latex_to_text(value)
    except Exception:  # pylatexenc is lenient; fall back to dropping braces if it still fails
        text = value.replace("{", "").replace("}", "")
    return " ".join(text.split())


def _split_names(value: str) -> list[str]:
    """Split an author list on ``and`` outside braces (``{Barnes and Noble}`` is one name)."""
    names, start = [], 0
    for match in re.finditer(r"\s+and\s+", _mask_braced(value)):  # masked: same positions
        names.append(value[start : match.start()])
        start = match.end()
    names.append(value[start:])
    return names


def _mask_braced(value: str) -> str:
    """``value`` with every braced group (nested too) blanked out, positions unchanged."""
    while (masked := re.sub(r"\{[^{}]*\}", lambda m: "_" * len(m.group()), value)) != value:
        value = masked
    return value


def _bib_authors(value: str | None) -> list[str]:
    """``Smith, John and Doe, J.`` → ``["John Smith", "J. Doe"]``."""
    names = []
    for raw in _split_names(value or ""):
        if raw.strip().lower() == "others":  # BibTeX's "et al."
            continue
        # a comma inside braces is part of a corporate name, not "Last, First"
        cut = _mask_braced(raw).find(",")
        last, first = (raw[:cut], raw[cut + 1 :]) if cut >= 0 else (raw, "")
        name = f"{_latex_to_text(first)} {_latex_to_text(last)}"
        if name.strip():
            names.append(" ".join(name.split()))
    return names


def _unescape(value: str | None) -> str | None:
    """``10.1000/a\\_b`` → ``10.1000/a_b``: DOIs and URLs are not LaTeX, but get escaped anyway."""
    return re.sub(r"\\([_%&#$~])", r"\1", value) if value else None


def _map_bibtex(key: str, fields: dict[str, str]) -> dict[str, Any]:
    f = {k.lower(): v.strip() for k, v in fields.items() if isinstance(v, str)}
    eprint_type = (f.get("archiveprefix") or f.get("eprinttype") or "").lower()
    arxiv = f.get("arxivid") or (f.get("eprint") if eprint_type in ("arxiv", "") else None)
    pmid = f.get("pmid") or (f.get("eprint") if eprint_type == "pubmed" else None)
    venue = f.get("journal") or f.get("journaltitle") or f.get("booktitle")

    def text(name: str) -> str | None:
        return (_latex_to_text(f[name]) or None) if f.get(name) else None

    return {
        "source_id": key,
        "title": text("title"),
        "abstract": text("abstract"),
        "doi": _unescape(f.get("doi")),
        "pmid": pmid if normalize_pmid(pmid) else None,
        "arxiv_id": (arxiv if normalize_arxiv_id(arxiv) else None) or _arxiv_from_doi(_unescape(f.get("doi"))),
        "year": _year(f.get("year")) or _year(f.get("date")),
        "venue": _latex_to_text(venue) if venue else None,
        "url": _unescape(f.get("url")),
        "authors": _bib_authors(f.get("author")),
    }


def _bib_failure_reason(block: ParsingFailedBlock) -> str:
    err = block.error
    detail = getattr(err, "abort_reason", None) or getattr(err, "message", None) or str(err)
    return f"BibTeX block could not be parsed: {(detail or type(err).__name__).strip()}"


def _load_bibtex_file(path: Path) -> _FileResult:
    result = _FileResult(shape=CorpusShape.BIBTEX)
    text = _read_text(path, result)
    if text is None:
        return result
    library = bibtexparser.parse_string(text)
    # bibtexparser counts lines from 0
    for block in library.failed_blocks:
        result.issues.append(_issue(f"{path}:{(block.start_line or 0) + 1}", _bib_failure_reason(block)))
    for entry in library.entries:
        location = f"{path}:{(entry.start_line or 0) + 1}"
        values = {k: v.value for k, v in entry.fields_dict.items()}
        made = _make_record(_map_bibtex(entry.key, values))
        if isinstance(made, str):
            result.issues.append(_issue(location, made))
        else:
            result.records.append((location, made))
    result.issues.sort(key=lambda i: int(i.location.rsplit(":", 1)[1]))
    return result


def load_file(path: Path) -> _FileResult:
    """Records and issues of one corpus file, its shape detected from its content."""
    if path.suffix.lower() in BIBTEX_SUFFIXES:
        return _load_bibtex_file(path)
    return _load_json_file(path)


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
                issues.append(_issue(location, f"duplicate id {record.source_id} (kept the one at {kept})"))
                continue
            first_seen[record.source_id] = location
            records.append(record)
    return _IndexPayload(INDEX_FORMAT_VERSION, key, files, records, issues, shapes, _build_bm25(records), repairs)


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
        isinstance(payload, _IndexPayload) and payload.version == INDEX_FORMAT_VERSION and payload.fingerprint == key
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

    def __init__(self, path: Path, payload: _IndexPayload, *, loaded_from_cache: bool,
                 skipped: list[Skipped] | None = None) -> None:
        self.path = path
        self.fingerprint = payload.fingerprint
        self.files: list[Path] = list(payload.files)
        self.records: list[PaperRecord] = payload.records
        # files the folder held but that were not read (symlinks out of it, over the size limit) come first
        self.issues: list[SourceIssue] = [_issue(f"{s.path}:0", f"not read: {s.reason}") for s in skipped or []]
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
    def open(cls, path: str | Path, cache_dir: str | Path | None = None) -> LocalCorpus:
        """Load the corpus at ``path``, from ``cache_dir`` when its files have not changed.

        Raises CorpusError when the path does not exist or holds no supported file.
        """
        started = time.perf_counter()
        root = Path(path).expanduser()
        found = discover(root)
        files = _usable(found)
        key = fingerprint(files)
        target = Path(cache_dir) / key / _INDEX_FILE if cache_dir is not None else None
        payload = _read_cache(target, key) if target else None
        cached = payload is not None
        if payload is None:
            payload = _build(files, key)
            if target:
                _write_cache(target, payload)
        corpus = cls(root.resolve(), payload, loaded_from_cache=cached, skipped=found.skipped)
        logger.info(
            "local corpus %s: %d papers, %d issues, %d files (%s) in %.2fs",
            root, len(corpus), len(corpus.issues), len(files), "cached" if cached else "built",
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
        return (f"{self.repaired_lines():,} line(s) of corpus {self.path} were not UTF-8 and were read as "
                f"Windows-1252/Latin-1: {file} lines {shown}{others}")

    def __len__(self) -> int:
        return len(self.records)

    def is_stale(self) -> bool:
        """True when a file was added, removed or changed since this corpus was loaded."""
        try:
            return fingerprint(discover_files(self.path)) != self.fingerprint
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
        if (work := _openalex_id(text)) and work in self._by_id:
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
