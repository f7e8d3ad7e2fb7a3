"""Corpus files of BibTeX (``.bib``, as reference managers export them): one ``PaperRecord`` per
entry, ``@string`` macros and ``#`` concatenations expanded (``lyra_resources.corpus.bibtex_values``),
LaTeX markup in titles, abstracts and names decoded, identifiers taken from the ``doi``, ``pmid``,
``eprint`` and ``arxivid`` fields; a block that does not parse, and an entry whose braces nest too
deep or whose field is too long, is reported with its line and left out. Every step is linear in
the file's size.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import bibtexparser
from bibtexparser.model import Entry, ParsingFailedBlock
from pylatexenc.latex2text import LatexNodes2Text  # comes with bibtexparser v2, which uses it too

from lyra_core.identifiers import normalize_arxiv_id, normalize_pmid
from lyra_resources.corpus.bibtex_values import BibValueError, BibValues
from lyra_resources.corpus.records import (
    CorpusShape,
    FileResult,
    arxiv_from_doi,
    make_record,
    plausible_year,
    read_text,
    source_issue,
)

_LATEX = LatexNodes2Text()
# what pylatexenc changes: macros, groups, math, ties, alignment, dashes and TeX quotes
_LATEX_MARKUP = re.compile(r"[\\{}$~&`]|--|''")


def _latex_to_text(value: str) -> str:
    """Decode LaTeX markup (braces, accents, ``\\&``) in a BibTeX field."""
    # exporters do not always escape %, which LaTeX would read as a comment eating the line
    value = re.sub(r"(?<!\\)%", r"\\%", value)
    if not _LATEX_MARKUP.search(value):  # plain text: pylatexenc would give it back unchanged, slowly
        return " ".join(value.split())
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
    """``value`` with every balanced braced group (nested too) blanked out, positions unchanged; one
    pass (an unmatched brace stays, as do the characters outside every group)."""
    opened: list[int] = []
    groups: list[tuple[int, int]] = []
    for match in re.finditer(r"[{}]", value):
        if match.group() == "{":
            opened.append(match.start())
        elif opened:
            groups.append((opened.pop(), match.end()))
    chars, covered = list(value), -1
    for start, end in sorted(groups):  # by start: a group inside one already blanked adds nothing
        for i in range(max(start, covered), end):
            chars[i] = "_"
        covered = max(covered, end)
    return "".join(chars)


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
        "arxiv_id": (arxiv if normalize_arxiv_id(arxiv) else None) or arxiv_from_doi(_unescape(f.get("doi"))),
        "year": plausible_year(f.get("year")) or plausible_year(f.get("date")),
        "venue": _latex_to_text(venue) if venue else None,
        "url": _unescape(f.get("url")),
        "authors": _bib_authors(f.get("author")),
    }


def _bib_failure_reason(block: ParsingFailedBlock) -> str:
    err = block.error
    detail = getattr(err, "abort_reason", None) or getattr(err, "message", None) or str(err)
    return f"BibTeX block could not be parsed: {(detail or type(err).__name__).strip()}"


def _entry_values(entry: Entry, values_of: BibValues) -> dict[str, str]:
    """Field name → text of one entry; BibValueError naming the field that cannot be read."""
    values = {}
    for name, field in entry.fields_dict.items():
        try:
            values[name] = values_of.text(field.value) if isinstance(field.value, str) else field.value
        except BibValueError as err:
            raise BibValueError(f"its {name} field {err}") from None
    return values


def load_bibtex_file(path: Path) -> FileResult:
    """Records and issues of one BibTeX file, issues in line order."""
    result = FileResult(shape=CorpusShape.BIBTEX)
    text = read_text(path, result)
    if text is None:
        return result
    # no parse stack: the raw values, read by BibValues (macros, ``#``, enclosing braces or quotes)
    library = bibtexparser.parse_string(text, parse_stack=[])
    # bibtexparser counts lines from 0
    for block in library.failed_blocks:
        result.issues.append(
            source_issue(f"{path}:{(block.start_line or 0) + 1}", _bib_failure_reason(block))
        )
    values_of = BibValues({macro.key: macro.value for macro in library.strings})
    for entry in library.entries:
        location = f"{path}:{(entry.start_line or 0) + 1}"
        try:
            values = _entry_values(entry, values_of)
        except BibValueError as err:
            result.issues.append(source_issue(location, f"BibTeX entry {entry.key} left out: {err}"))
            continue
        made = make_record(_map_bibtex(entry.key, values))
        if isinstance(made, str):
            result.issues.append(source_issue(location, made))
        else:
            result.records.append((location, made))
    result.issues.sort(key=lambda i: int(i.location.rsplit(":", 1)[1]))
    return result
