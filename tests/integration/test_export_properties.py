"""Reference exports over many generated papers with missing and odd fields, stored in a real DuckDB
store and read back by each format's own library: BibTeX through bibtexparser (names split by its
middlewares, LaTeX decoded by pylatexenc), RIS through rispy, CSL-JSON against the CSL-JSON schema's
shape. Every paper must come back with its title, year, authors, DOI, PMID, arXiv id, Lyra's paper
id and its sources; text comes back as one line.

A seeded generator makes the records (hypothesis is not a dependency of the project): each seed
is one task of ``PAPERS_PER_TASK`` papers, so a failure names the seed that makes it.
"""

from __future__ import annotations

import json
import random
import unicodedata

import bibtexparser
import jsonschema
import numpy as np
import pandas as pd
import pytest
import rispy
from bibtexparser.middlewares import SeparateCoAuthors, SplitNameParts
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.exports import formats as export
from lyra_tools.exports.references import ExportedPaper

SEEDS = range(4)
PAPERS_PER_TASK = 60

WORDS = [
    "Vitamin",
    "D",
    "fracture",
    "risk",
    "in",
    "older",
    "adults",
    "meta-analysis",
    "Ünïcödé",
    "α-synuclein",
    "中文标题",
    "שלום",
    "😀",
    "naïve",
    "Œuvre",
]
ODD = [
    "{",
    "}",
    "{braced}",
    "%",
    "50%",
    "&",
    "$5",
    "#1",
    "a_b",
    "~",
    "^",
    "\\",
    "\\emph{x}",
    '"quoted"',
    "''",
    "``",
    "--",
    "---",
    "?`",
    "!`",
    "<<",
    ">>",
    "@article{x,",
    "ER  - ",
    "TY  - JOUR",
    "\n",
    "\r\n",
    "\t",
    "\u2028",
    "\x85",
    "\x1c",
    "\x07",
    "\x1b[31m",
    "  ",
    ";",
    ",",
    " and ",
    "'",
]
NAMES = [
    "Smith, Jane Q.",
    "van der Berg, Anna",
    "Smith, John, Jr.",
    "World Health Organization",
    "Plato",
    "Barnes and Noble, Inc",
    "Müller, Jörg",
    "O'Brien, Seán",
    "李, 小龙",
    "{Odd}, Name%",
    "Group & Co, 50%",
    "de la Cruz, María-José",
    "A, B, C, D",
    ", Given only",
    "Family only,",
    "Ng, A~B",
    "and",
    "Tab\tName, First\nLine",
    "Über, {X}",
]
DOIS = [
    "10.1000/xyz123",
    "10.1002/(sici)1097-0258(19980430)17:8<857::aid-sim777>3.0.co;2-e",
    "10.5555/50%off#frag",
    "10.1000/é-ü",
    "10.1234/a_b~c^d",
]
URLS = ["https://example.org/a?b=c&d=%20", "javascript:alert(1)", "ftp://example.org/x", "http://x.org/é"]
MISSING = [None, np.nan, pd.NA]


def text(rng: random.Random) -> str:
    parts = [rng.choice(WORDS + ODD) for _ in range(rng.randint(1, 12))]
    if rng.random() < 0.05:  # a very long title
        parts *= 400 // len(parts) + 1
    return " ".join(parts) if rng.random() < 0.5 else "".join(parts)


def maybe(rng: random.Random, value, missing: float = 0.3):
    return rng.choice(MISSING + ["", "  \n "]) if rng.random() < missing else value


def paper_row(rng: random.Random, n: int) -> dict:
    authors = rng.choice([None, [], [rng.choice(NAMES) for _ in range(rng.randint(1, 5))]])
    if authors and rng.random() < 0.2:
        authors = [*authors, None, ""]  # NULL and empty items inside the list
    sources = rng.sample(
        ["local:row-1", "s2:123", "openalex:W99", "local:Ünï code/ü", "pubmed:31234567"], rng.randint(0, 3)
    )
    return {
        "paper_id": f"p_{n:04d}{rng.choice(['', 'ü', '_x'])}",
        "doi": maybe(rng, rng.choice(DOIS)),
        "pmid": maybe(rng, str(rng.randint(1, 40_000_000))),
        "arxiv_id": maybe(rng, rng.choice(["1706.03762", "hep-th/9901001"]), 0.6),
        "title": maybe(rng, text(rng), 0.15),
        "abstract": maybe(rng, text(rng)),
        "year": rng.choice([pd.NA, pd.NA, rng.randint(1800, 2030), rng.randint(1800, 2030)]),
        "venue": maybe(rng, text(rng)),
        "url": maybe(rng, rng.choice(URLS)),
        "sources": sources,
        "search_rank": rng.choice([n, None]),
        "authors": authors,
    }


def stored_task(tmp_path, seed: int) -> tuple[LyraStore, str, pd.DataFrame]:
    rng = random.Random(seed)
    rows = pd.DataFrame([paper_row(rng, n) for n in range(PAPERS_PER_TASK)])
    rows["year"] = rows["year"].astype("Int64")
    rows["search_rank"] = rows["search_rank"].astype("Int64")
    store = LyraStore.at(tmp_path / "home")
    task_id = store.create_task(f"generated papers, seed {seed}").id
    store.replace_partition("papers", task_id, rows)
    return store, task_id, rows


# -- what each paper must come back with -------------------------------------------------------------


def one_line(value) -> str | None:
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    kept = "".join(c for c in value if c.isspace() or unicodedata.category(c) not in ("Cc", "Cs"))
    return " ".join(kept.split()) or None


def expected(row: dict) -> dict:
    authors = [a for a in map(one_line, row["authors"] if row["authors"] is not None else []) if a]
    return {
        "title": one_line(row["title"]),
        "year": None if pd.isna(row["year"]) else int(row["year"]),
        "doi": one_line(row["doi"]),
        "pmid": one_line(row["pmid"]),
        "arxiv_id": one_line(row["arxiv_id"]),
        "venue": one_line(row["venue"]),
        "authors": authors,
        "sources": list(row["sources"]),
    }


def name_parts(name: str) -> tuple[str, str, str]:
    """(family, given, suffix) as BibTeX and CSL name a person: ``Family, Given[, Suffix]``, no part
    empty; anything else (a group, one word, more commas, a word "and") is a family name alone."""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) in (2, 3) and all(parts) and "and" not in name.lower().split():
        return parts[0], parts[1], parts[2] if len(parts) == 3 else ""
    return name, "", ""


# -- BibTeX ------------------------------------------------------------------------------------------


def latex_decoder() -> LatexNodes2Text:
    """pylatexenc's decoder, with the text macros of LaTeX's kernel that it lacks or prints otherwise
    (\\textbraceleft, \\textbraceright; \\textasciicircum as ^, not U+02C6) as LaTeX prints them."""
    context = get_default_latex_context_db()
    context.add_context_category(
        "latex-prints",
        prepend=True,
        macros=[
            MacroTextSpec("textasciicircum", "^"),
            MacroTextSpec("textbraceleft", "{"),
            MacroTextSpec("textbraceright", "}"),
        ],
    )
    return LatexNodes2Text(latex_context=context, math_mode="verbatim")


def read_bibtex(text: str) -> dict[str, dict]:
    library = bibtexparser.parse_string(text, append_middleware=[SeparateCoAuthors(), SplitNameParts()])
    assert not library.failed_blocks, [b.error for b in library.failed_blocks]
    decode = latex_decoder().latex_to_text
    papers = {}
    for entry in library.entries:
        fields = entry.fields_dict
        value = lambda key, fields=fields: fields[key].value if key in fields else None  # noqa: E731

        def person(parts) -> tuple[str, str, str]:
            return (
                " ".join(decode(w) for w in [*parts.von, *parts.last]),
                " ".join(decode(w) for w in parts.first),
                " ".join(decode(w) for w in parts.jr),
            )

        papers[value("lyra_paper")] = {
            "title": value("title") and decode(value("title")),
            "year": value("year") and int(value("year")),
            "doi": value("doi"),
            "pmid": value("pmid"),
            "arxiv_id": value("eprint"),
            "venue": value("journal") and decode(value("journal")),
            "authors": [person(p) for p in value("author")] if "author" in fields else [],
            "sources": decode(value("lyra_sources")).split(", ") if "lyra_sources" in fields else [],
            "url": value("url"),
        }
    return papers


@pytest.mark.parametrize("seed", SEEDS)
def test_bibtex_gives_back_every_paper(tmp_path, seed):
    store, task_id, rows = stored_task(tmp_path, seed)
    text = export.export(store, task_id, "bibtex")
    back = read_bibtex(text)
    assert set(back) == set(rows["paper_id"])
    keys = [e.key for e in bibtexparser.parse_string(text).entries]
    assert len(set(keys)) == len(keys) and all(k.isascii() and k.isalnum() for k in keys)
    for row in rows.to_dict("records"):
        want, got = expected(row), back[row["paper_id"]]
        assert {k: got[k] for k in ("title", "year", "doi", "pmid", "arxiv_id", "venue", "sources")} == {
            k: want[k] for k in ("title", "year", "doi", "pmid", "arxiv_id", "venue", "sources")
        }, row
        assert got["authors"] == [name_parts(a) for a in want["authors"]], row


# -- RIS ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_ris_gives_back_every_paper(tmp_path, seed):
    store, task_id, rows = stored_task(tmp_path, seed)
    back = {r["id"]: r for r in rispy.loads(export.export(store, task_id, "ris"))}
    assert set(back) == set(rows["paper_id"])
    for row in rows.to_dict("records"):
        want, got = expected(row), back[row["paper_id"]]
        assert got["type_of_reference"] == "JOUR"
        assert (
            got.get("title"),
            got.get("year"),
            got.get("doi"),
            got.get("accession_number"),
            got.get("custom1"),
            got.get("journal_name"),
            got.get("authors", []),
        ) == (
            want["title"],
            None if want["year"] is None else str(want["year"]),
            want["doi"],
            want["pmid"],
            want["arxiv_id"],
            want["venue"],
            want["authors"],
        ), row
        assert (got["custom2"].split("; ") if "custom2" in got else []) == want["sources"]
        assert all(u.startswith(("https://", "http://")) for u in got.get("urls", []))


# -- CSL-JSON ----------------------------------------------------------------------------------------

DATE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["date-parts"],
    "properties": {
        "date-parts": {
            "type": "array",
            "minItems": 1,
            "maxItems": 2,
            "items": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": ["string", "number"]}},
        }
    },
}
NAME = {
    "type": "object",
    "additionalProperties": False,
    "minProperties": 1,
    "properties": {
        k: {"type": "string"}
        for k in ("family", "given", "suffix", "literal", "dropping-particle", "non-dropping-particle")
    },
}
# The shape CSL-JSON 1.0.2's schema (csl-data.json) gives the variables Lyra writes: an array of
# items, each with a type from its list and an id; no property outside the schema's (additionalProperties
# is false there); names and dates in their content models; ``custom`` an object of key-value pairs.
CSL_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["type", "id"],
        "additionalProperties": False,
        "properties": {
            "type": {
                "enum": [
                    "article",
                    "article-journal",
                    "paper-conference",
                    "report",
                    "book",
                    "chapter",
                    "thesis",
                    "webpage",
                    "dataset",
                    "manuscript",
                ]
            },
            "id": {"type": ["string", "number"]},
            "title": {"type": "string"},
            "author": {"type": "array", "items": NAME},
            "issued": DATE,
            "container-title": {"type": "string"},
            "DOI": {"type": "string"},
            "URL": {"type": "string"},
            "PMID": {"type": "string"},
            "PMCID": {"type": "string"},
            "note": {"type": "string"},
            "number": {"type": ["string", "number"]},
            "custom": {"type": "object"},
        },
    },
}


def csl_person(name: dict) -> tuple[str, str, str]:
    return name.get("family", name.get("literal", "")), name.get("given", ""), name.get("suffix", "")


@pytest.mark.parametrize("seed", SEEDS)
def test_csl_json_is_valid_and_gives_back_every_paper(tmp_path, seed):
    store, task_id, rows = stored_task(tmp_path, seed)
    items = json.loads(export.export(store, task_id, "csl-json"))
    jsonschema.validate(items, CSL_SCHEMA)
    back = {i["id"]: i for i in items}
    assert set(back) == set(rows["paper_id"])
    for row in rows.to_dict("records"):
        want, got = expected(row), back[row["paper_id"]]
        assert (got.get("title"), got.get("DOI"), got.get("PMID"), got.get("container-title")) == (
            want["title"],
            want["doi"],
            want["pmid"],
            want["venue"],
        ), row
        assert got.get("issued") == (None if want["year"] is None else {"date-parts": [[want["year"]]]})
        assert [csl_person(a) for a in got.get("author", [])] == [name_parts(a) for a in want["authors"]], row
        assert (got.get("custom", {}).get("arxiv"), got.get("custom", {}).get("lyra_sources", [])) == (
            want["arxiv_id"],
            want["sources"],
        )


# -- cells as every reader gives them ----------------------------------------------------------------


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA, pd.NaT, float("nan"), np.float64("nan")])
def test_a_missing_cell_of_any_kind_is_an_absent_field(missing):
    row = {
        "paper_id": "p_1",
        "title": missing,
        "authors": missing,
        "year": missing,
        "venue": missing,
        "doi": missing,
        "pmid": missing,
        "arxiv_id": missing,
        "url": missing,
        "sources": missing,
    }
    paper = ExportedPaper.from_row(row)
    assert paper == ExportedPaper(paper_id="p_1")
    for writer in export.REFERENCE_FORMATS:  # a reference with nothing but its id is still written
        assert "p_1" in export.REFERENCE_WRITERS[writer]([paper])


def test_cells_as_pandas_and_numpy_give_them():
    row = {
        "paper_id": "p_2",
        "title": "A\x00title\nin two lines",
        "year": np.float64(2019.0),
        "authors": np.array(["Smith, J.", None, pd.NA, "  "], dtype=object),
        "sources": np.array(["s2:1"]),
        "doi": "10.1/x",
        "pmid": np.str_("123"),
        "venue": pd.NA,
        "url": np.nan,
        "arxiv_id": None,
    }
    paper = ExportedPaper.from_row(row)
    assert (paper.title, paper.year, paper.authors, paper.sources, paper.pmid) == (
        "Atitle in two lines",
        2019,
        ["Smith, J."],
        ["s2:1"],
        "123",
    )
    assert ExportedPaper.from_row({**row, "year": np.float64("inf")}).year is None
    assert ExportedPaper.from_row({**row, "year": "2019"}).year == 2019
