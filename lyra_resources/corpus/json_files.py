"""Corpus files of JSON records (JSONL, or a JSON document: one record, a list, or an API page),
their shape detected from their content:

- OpenAlex works (``id`` = ``https://openalex.org/W…``; a ``results`` page);
- Semantic Scholar papers (``paperId``; a ``data`` page);
- SciFact corpus lines (``doc_id`` + ``abstract`` as a list of sentences);
- BEIR corpus lines (``_id`` + ``title``/``text``).

Recorded API responses that wrap one of these in ``{"uri"|"url": …, "body": …}`` load too. One file
holds one shape: a record of another shape is reported, not mixed in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from lyra_core.identifiers import find_arxiv_ids, normalize_doi
from lyra_resources.corpus.records import (
    CorpusShape,
    FileResult,
    arxiv_from_doi,
    make_record,
    plausible_year,
    read_text,
    source_issue,
)


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
    arxiv = arxiv_from_doi(doi) or next(iter(find_arxiv_ids(" ".join(landing))), None)
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
        "year": plausible_year(item.get("publication_year")) or plausible_year(item.get("publication_date")),
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
        "arxiv_id": _str(ext.get("ArXiv")) or arxiv_from_doi(doi),
        "year": plausible_year(item.get("year")) or plausible_year(item.get("publicationDate")),
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
        "arxiv_id": _str(meta.get("arxiv_id")) or arxiv_from_doi(doi),
        "year": plausible_year(meta.get("year")),
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


NESTED_TOO_DEEP = "invalid JSON: arrays or objects nested too deeply to read"


def _json_values(path: Path, text: str, result: FileResult) -> Iterator[tuple[int, Any]]:
    """(line, value) for a whole-file JSON document, else for each JSONL line."""
    try:
        yield 1, json.loads(text)
        return
    except json.JSONDecodeError as whole_err:
        first_error = (whole_err.lineno, f"invalid JSON: {whole_err.msg} (column {whole_err.colno})")
    except RecursionError:  # arrays or objects nested thousands deep: refused, not a crash
        first_error = (1, NESTED_TOO_DEEP)
    start = len(result.issues)
    any_good = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as err:
            result.issues.append(
                source_issue(f"{path}:{number}", f"invalid JSON: {err.msg} (column {err.colno})")
            )
            continue
        except RecursionError:
            result.issues.append(source_issue(f"{path}:{number}", NESTED_TOO_DEEP))
            continue
        any_good = True
        yield number, value
    if not any_good and path.suffix.lower() == ".json":
        # a broken pretty-printed document: one issue where it breaks, not one per line
        del result.issues[start:]
        result.issues.append(source_issue(f"{path}:{first_error[0]}", first_error[1]))


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


def load_json_file(path: Path) -> FileResult:
    """Records and issues of one JSON or JSONL corpus file; its first recognised record sets the shape."""
    result = FileResult()
    text = read_text(path, result)
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
            made = make_record(_MAPPERS[shape](item))
            if isinstance(made, str):
                result.issues.append(source_issue(location, prefix + made))
            else:
                result.records.append((location, made))
    return result
