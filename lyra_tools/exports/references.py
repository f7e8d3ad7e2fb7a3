"""A task's papers as references: BibTeX, RIS and CSL-JSON, each written by its library.

Every reference carries Lyra's identifiers so a reader can trace it back to the task's graph: the
paper id (BibTeX ``lyra_paper``, RIS ``ID``, CSL ``id``), its PMID (``pmid`` / ``AN`` / ``PMID``),
its arXiv id (``eprint`` / ``C1`` / ``custom.arxiv``) and the source records merged into it
(``lyra_sources`` / ``C2`` / ``custom.lyra_sources``).

A paper may lack any field. Rows become :class:`ExportedPaper` first, where a SQL NULL read as
None, NaN or ``pd.NA`` becomes None, text is one line without control characters, and the year
an int; the writers never test a raw cell. BibTeX text is written so LaTeX prints it as it is
(``%``, ``&``, braces, ``--``); identifiers and URLs are written verbatim, as styles read them.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

import bibtexparser
import duckdb
import numpy as np
import pandas as pd
import rispy
from bibtexparser.model import Entry, Field
from pydantic import BaseModel

from lyra_core.answer import voting_papers
from lyra_core.cells import cell_list
from lyra_core.report.refs import linkable
from lyra_resources.store.reviewed_graph.answer import source_edges
from lyra_resources.store.reviewed_graph.overlay import load_claims, load_overlay
from lyra_resources.store.reviewed_graph.papers import task_papers

# What LaTeX reads as markup in a BibTeX value, written so that it prints as itself, each in braces
# as BibTeX writes a special character ({\"u}): no value or name then starts with a backslash, and a
# brace is a macro, not \{, since BibTeX counts every brace and a title's lone one would unbalance it.
_LATEX_SPECIALS = {
    c: "{" + m + "}"
    for c, m in {
        "\\": r"\textbackslash",
        "{": r"\textbraceleft",
        "}": r"\textbraceright",
        "%": r"\%",
        "&": r"\&",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "~": r"\textasciitilde",
        "^": r"\textasciicircum",
    }.items()
}
# TeX ligatures that print as another character ("--" a dash, "''" a closing quote, "?`" an inverted
# question mark, "<<" a guillemet): an empty group between the two characters keeps them apart.
_LIGATURES = re.compile(r"(?<=-)(?=-)|(?<=')(?=')|(?<=`)(?=`)|(?<=[?!])(?=`)|(?<=<)(?=<)|(?<=>)(?=>)")
# An identifier field is read verbatim by BibTeX styles; only a brace or a backslash could break it.
_VERBATIM_UNSAFE = {"{": "%7B", "}": "%7D", "\\": "%5C"}


def _missing(value: Any) -> bool:
    """Whether a cell is SQL NULL as some reader gave it: None, NaN, NaT or ``pd.NA``."""
    return value is None or (pd.api.types.is_scalar(value) and bool(pd.isna(value)))


def one_line(value: Any) -> str | None:
    """A text cell as one line: control characters and lone surrogates dropped, runs of
    whitespace (line breaks included) one space; None when missing or blank."""
    if _missing(value):
        return None
    text = "".join(c for c in str(value) if c.isspace() or unicodedata.category(c) not in ("Cc", "Cs"))
    return " ".join(text.split()) or None


def year_of(value: Any) -> int | None:
    """A year cell as an int; None when missing or not a whole number."""
    if _missing(value) or isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return int(value) if math.isfinite(value) and float(value).is_integer() else None
    text = str(value).strip()
    return int(text) if re.fullmatch(r"-?\d{1,6}", text) else None


class ExportedPaper(BaseModel):
    """One reference as every format writes it; an absent field is None (or an empty list)."""

    paper_id: str
    title: str | None = None
    authors: list[str] = []  # `Family, Given` per author, a group's name as it is
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    pmid: str | None = None
    arxiv_id: str | None = None
    url: str | None = None  # an http(s) link a reference manager may make clickable, else None
    sources: list[str] = []  # `source:id` of each record merged into the paper

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> ExportedPaper:
        """The paper of a ``task_papers`` row (or any mapping with its columns), whatever is missing."""
        listed = {
            name: [t for item in cell_list(row.get(name)) if (t := one_line(item))]
            for name in ("authors", "sources")
        }
        return cls(
            paper_id=str(row["paper_id"]),
            title=one_line(row.get("title")),
            year=year_of(row.get("year")),
            venue=one_line(row.get("venue")),
            doi=one_line(row.get("doi")),
            pmid=one_line(row.get("pmid")),
            arxiv_id=one_line(row.get("arxiv_id")),
            url=linkable(one_line(row.get("url"))),
            **listed,
        )


def voting_paper_ids(conn: duckdb.DuckDBPyConnection, task_id: str) -> set[str]:
    """Papers that hold evidence: each casts a vote for or against at least one claim in force of
    the task (its strongest SUPPORTS or REFUTES edge to that claim, at least ``evidence.min_vote``),
    counted in the effective graph (corrections applied, rejected claims and blocked pages left out)
    as the task's answer counts them. Web pages that are no paper are not among them."""
    overlay = load_overlay(conn, task_id)
    claims = [c["claim_id"] for c in load_claims(conn, task_id, overlay) if not c["rejected"]]
    return voting_papers(source_edges(conn, task_id, claims, overlay), overlay.rule.min_vote)


def reference_papers(
    conn: duckdb.DuckDBPyConnection, task_id: str, only_evidence: bool = False
) -> list[ExportedPaper]:
    """The task's papers, best search rank first (``task_papers``: its search results and the papers
    whose abstract it read); with ``only_evidence``, only those of :func:`voting_paper_ids`."""
    rows = task_papers(conn, task_id)
    if only_evidence:
        voters = voting_paper_ids(conn, task_id)
        rows = {paper_id: row for paper_id, row in rows.items() if paper_id in voters}
    return [ExportedPaper.from_row(row) for row in rows.values()]


# -- BibTeX ------------------------------------------------------------------------------------------


def latex_text(text: str) -> str:
    """``text`` as a BibTeX value that LaTeX prints as ``text`` (unicode is kept: the file is UTF-8)."""
    return _LIGATURES.sub("{}", "".join(_LATEX_SPECIALS.get(c, c) for c in text))


def _verbatim(text: str) -> str:
    return "".join(_VERBATIM_UNSAFE.get(c, c) for c in text)


def person_parts(name: str) -> tuple[str, str, str] | None:
    """(family, given, suffix) of a person's name written ``Family, Given[, Suffix]``, no part empty;
    None for anything else (a group's name such as "World Health Organization", one word, more
    commas, a word "and", on which BibTeX would split the list), which every format writes whole."""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) not in (2, 3) or not all(parts) or re.search(r"(^|\s)and(\s|$)", name, re.IGNORECASE):
        return None
    return parts[0], parts[1], parts[2] if len(parts) == 3 else ""


def bibtex_name(name: str) -> str:
    """One author for BibTeX's ``and``-separated list: a person as ``Family, Given`` (``Family, Jr.,
    Given`` with a suffix); any other name braced, so BibTeX takes it whole as a family name."""
    if (person := person_parts(name)) is None:
        return "{" + latex_text(name) + "}"
    family, given, suffix = person
    return latex_text(f"{family}, {suffix}, {given}" if suffix else f"{family}, {given}")


def _ascii_word(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def citation_key(paper: ExportedPaper, used: set[str]) -> str:
    """A citation key such as ``smith2019vitamin``, unique within the export (ASCII letters and digits)."""
    family = re.sub(r"[^a-z]", "", _ascii_word((paper.authors or ["anon"])[0].split(",")[0])) or "anon"
    word = next(iter(re.findall(r"[a-z]{4,}", _ascii_word(paper.title or ""))), "paper")
    stem = f"{family}{paper.year if paper.year is not None else ''}{word}".replace("-", "")
    key, n = stem, 1
    while key in used:
        n += 1
        key = f"{stem}{n}"
    used.add(key)
    return key


def to_bibtex(papers: Sequence[ExportedPaper]) -> str:
    library, used = bibtexparser.Library(), set()
    for paper in papers:
        fields = {
            "title": paper.title and latex_text(paper.title),
            "author": " and ".join(bibtex_name(a) for a in paper.authors) or None,
            "year": None if paper.year is None else str(paper.year),
            "journal": paper.venue and latex_text(paper.venue),
            "doi": paper.doi and _verbatim(paper.doi),
            "url": paper.url and _verbatim(paper.url),
            "pmid": paper.pmid and _verbatim(paper.pmid),
            "eprint": paper.arxiv_id and _verbatim(paper.arxiv_id),
            "archiveprefix": "arXiv" if paper.arxiv_id else None,
            "lyra_paper": _verbatim(paper.paper_id),
            "lyra_sources": latex_text(", ".join(paper.sources)) if paper.sources else None,
        }
        library.add(
            Entry(
                "article",
                citation_key(paper, used),
                [Field(k, v) for k, v in fields.items() if v is not None],
            )
        )
    return bibtexparser.write_string(library)


# -- RIS and CSL-JSON --------------------------------------------------------------------------------


def to_ris(papers: Sequence[ExportedPaper]) -> str:
    entries = []
    for paper in papers:
        entry = {
            "type_of_reference": "JOUR",
            "id": paper.paper_id,
            "title": paper.title,
            "authors": paper.authors,
            "year": None if paper.year is None else str(paper.year),
            "journal_name": paper.venue,
            "doi": paper.doi,
            "urls": [paper.url] if paper.url else None,
            "accession_number": paper.pmid,
            "custom1": paper.arxiv_id,
            "custom2": "; ".join(paper.sources) or None,
        }
        entries.append({k: v for k, v in entry.items() if v})
    return rispy.dumps(entries)


def csl_name(name: str) -> dict[str, str]:
    """A CSL name: ``family``, ``given`` and ``suffix`` of a person, any other name as a ``literal``."""
    if (person := person_parts(name)) is None:
        return {"literal": name}
    return {k: v for k, v in zip(("family", "given", "suffix"), person, strict=True) if v}


def to_csl_json(papers: Sequence[ExportedPaper]) -> str:
    """CSL-JSON items (https://citeproc-js.readthedocs.io/en/latest/csl-json/markup.html)."""
    items = []
    for paper in papers:
        custom = {"arxiv": paper.arxiv_id, "lyra_sources": paper.sources}
        item = {
            "id": paper.paper_id,
            "type": "article-journal",
            "title": paper.title,
            "author": [csl_name(a) for a in paper.authors],
            "issued": None if paper.year is None else {"date-parts": [[paper.year]]},
            "container-title": paper.venue,
            "DOI": paper.doi,
            "URL": paper.url,
            "PMID": paper.pmid,
            "custom": {k: v for k, v in custom.items() if v},
        }
        items.append({k: v for k, v in item.items() if v or k == "id"})
    return json.dumps(items, ensure_ascii=False, indent=2)


REFERENCE_WRITERS = {"bibtex": to_bibtex, "ris": to_ris, "csl-json": to_csl_json}
