"""Corpus records: one file of papers read into ``PaperRecord``s, its shape detected from its content.

Shapes understood:

- OpenAlex works (``id`` = ``https://openalex.org/W…``), JSONL or JSON (one work, a list, or a
  ``results`` page);
- Semantic Scholar papers (``paperId``), JSONL or JSON (one paper, a list, or a ``data`` page);
- SciFact corpus lines (``doc_id`` + ``abstract`` as a list of sentences);
- BEIR corpus lines (``_id`` + ``title``/``text``);
- BibTeX (``.bib``) exports of reference managers.

Recorded API responses that wrap one of these in ``{"uri"|"url": …, "body": …}`` load too.
Anything unreadable is reported as a ``SourceIssue`` (file:line and why), never skipped silently;
lines that were not UTF-8 and were read as Windows-1252 are listed in ``repaired``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import bibtexparser
from bibtexparser.model import ParsingFailedBlock
from pydantic import ValidationError
from pylatexenc.latex2text import LatexNodes2Text  # comes with bibtexparser v2, which uses it too

from lyra_core.identifiers import (
    find_arxiv_ids,
    normalize_arxiv_id,
    normalize_doi,
    normalize_pmid,
)
from lyra_core.papers import PaperRecord
from lyra_resources.corpus_files import BIBTEX_SUFFIXES, decode
from lyra_resources.providers import SourceIssue

SOURCE = "local"
_LATEX = LatexNodes2Text()


class CorpusShape(str, Enum):
    OPENALEX = "openalex"
    S2 = "s2"
    SCIFACT = "scifact"
    BEIR = "beir"
    BIBTEX = "bibtex"



# --------------------------------------------------------------------------- record mapping


def source_issue(location: str, reason: str) -> SourceIssue:
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


def openalex_work_id(value: Any) -> str | None:
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
        "source_id": openalex_work_id(item.get("id")),
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
    if openalex_work_id(item.get("id")):
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
        result.issues.append(source_issue(f"{path}:0", f"file cannot be read: {err.strerror or err}"))
        return None
    if decoded.text is None:
        result.issues.append(source_issue(f"{path}:{decoded.problem_line}", decoded.problem or "file is not text"))
        return None
    if not decoded.text.strip():
        result.issues.append(source_issue(f"{path}:1", "file is empty"))
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
            result.issues.append(source_issue(f"{path}:{number}", f"invalid JSON: {err.msg} (column {err.colno})"))
            continue
        any_good = True
        yield number, value
    if not any_good and path.suffix.lower() == ".json":
        # a broken pretty-printed document: one issue where it breaks, not one per line
        del result.issues[start:]
        reason = f"invalid JSON: {first_error.msg} (column {first_error.colno})"
        result.issues.append(source_issue(f"{path}:{first_error.lineno}", reason))


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
                result.issues.append(source_issue(location, prefix + reason))
                continue
            if shape is not result.shape:
                reason = f"{shape.value} record in a {result.shape.value} file"
                result.issues.append(source_issue(location, prefix + reason))
                continue
            made = _make_record(_MAPPERS[shape](item))
            if isinstance(made, str):
                result.issues.append(source_issue(location, prefix + made))
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
        result.issues.append(source_issue(f"{path}:{(block.start_line or 0) + 1}", _bib_failure_reason(block)))
    for entry in library.entries:
        location = f"{path}:{(entry.start_line or 0) + 1}"
        values = {k: v.value for k, v in entry.fields_dict.items()}
        made = _make_record(_map_bibtex(entry.key, values))
        if isinstance(made, str):
            result.issues.append(source_issue(location, made))
        else:
            result.records.append((location, made))
    result.issues.sort(key=lambda i: int(i.location.rsplit(":", 1)[1]))
    return result


def load_file(path: Path) -> _FileResult:
    """Records and issues of one corpus file, its shape detected from its content."""
    if path.suffix.lower() in BIBTEX_SUFFIXES:
        return _load_bibtex_file(path)
    return _load_json_file(path)
