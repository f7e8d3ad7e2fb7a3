"""Corpus records: what the readers of corpus files share. Every record a file yields becomes a
``PaperRecord`` of source ``local`` or a ``SourceIssue`` (file:line and why), never a silent skip;
a file is read as text first (lines that were not UTF-8 and were read as Windows-1252 are listed
in ``repaired``). A record holding text that no UTF-8 encoder accepts (a lone UTF-16 surrogate, as
a JSON ``"\\ud800"`` escape gives in any field, an OpenAlex abstract word or a recorded API body) is one
issue, not a crash of the whole corpus: :func:`make_record` is the one place every reader's records
pass through. Bytes read from a file never give one (see ``lyra_resources.corpus.discovery``).

The readers: ``lyra_resources.corpus.json_files`` (OpenAlex, Semantic Scholar, SciFact and BEIR
records, JSONL or JSON) and ``lyra_resources.corpus.bibtex_files`` (BibTeX exports).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lyra_core.identifiers import normalize_arxiv_id, normalize_doi
from lyra_core.papers import PaperRecord
from lyra_resources.corpus.discovery import decode
from lyra_resources.sources.providers import SourceIssue

SOURCE = "local"


class CorpusShape(str, Enum):
    OPENALEX = "openalex"
    S2 = "s2"
    SCIFACT = "scifact"
    BEIR = "beir"
    BIBTEX = "bibtex"


def printable(text: str) -> str:
    """``text`` with each lone surrogate written as ``\\udXXX``, so a reason quoting a record (or a
    path holding a byte that was not UTF-8) can be printed, logged and stored."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def source_issue(location: str, reason: str) -> SourceIssue:
    return SourceIssue(source=SOURCE, location=printable(location), reason=printable(reason))


def _unencodable_field(fields: dict[str, Any]) -> str | None:
    """The name of the first field whose text no UTF-8 encoder accepts (a lone surrogate), else None."""
    for name, value in fields.items():
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str):
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError:
                    return name
    return None


def plausible_year(value: Any) -> int | None:
    """A plausible year from an int or text such as ``2019`` or ``2019-05-07``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 1000 <= value <= 2999 else None
    match = re.search(r"\b(1\d{3}|2\d{3})\b", value) if isinstance(value, str) else None
    return int(match.group(1)) if match else None


def arxiv_from_doi(doi: str | None) -> str | None:
    """arXiv's own DOIs (``10.48550/arXiv.1706.03762``) name the arXiv id."""
    normal = normalize_doi(doi)
    if normal and normal.startswith("10.48550/arxiv."):
        return normalize_arxiv_id(normal.removeprefix("10.48550/arxiv."))
    return None


def make_record(fields: dict[str, Any]) -> PaperRecord | str:
    """A PaperRecord, or the reason the mapped fields cannot make one."""
    if not fields.get("source_id"):
        return "record has no id"
    if (bad := _unencodable_field(fields)) is not None:
        return (
            f"record {printable(str(fields['source_id']))} is not valid Unicode text: its {bad} holds "
            "a lone UTF-16 surrogate (e.g. a JSON \\ud800 escape)"
        )
    if not fields.get("title") and not fields.get("abstract"):
        return f"record {fields['source_id']} has no title and no abstract"
    try:
        return PaperRecord(source=SOURCE, **{**fields, "title": fields.get("title") or ""})
    except ValidationError as err:
        return f"record {fields['source_id']} is invalid: {err.errors()[0]['msg']}"


@dataclass
class FileResult:
    """What reading one corpus file gave: its shape, its records (each with its file:line), the
    issues found, and the lines that were repaired."""

    shape: CorpusShape | None = None
    records: list[tuple[str, PaperRecord]] = field(default_factory=list)  # (location, record)
    issues: list[SourceIssue] = field(default_factory=list)
    repaired: list[int] = field(default_factory=list)  # lines read as Windows-1252, not UTF-8


def read_text(path: Path, result: FileResult) -> str | None:
    """The file's text, or None once the reason it cannot be read is recorded in ``result``."""
    try:
        decoded = decode(path.read_bytes())
    except OSError as err:
        result.issues.append(source_issue(f"{path}:0", f"file cannot be read: {err.strerror or err}"))
        return None
    if decoded.text is None:
        result.issues.append(
            source_issue(f"{path}:{decoded.problem_line}", decoded.problem or "file is not text")
        )
        return None
    if not decoded.text.strip():
        result.issues.append(source_issue(f"{path}:1", "file is empty"))
        return None
    result.repaired = decoded.repaired
    return decoded.text
