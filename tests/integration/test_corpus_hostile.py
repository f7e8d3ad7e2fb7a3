"""Hostile corpus files: one bad record or BibTeX entry is left out and counted, the rest still loads
(docs/guarantees.md), and no entry costs more than its size to read.

The ``lyra`` calls are real terminal-less subprocesses (``python -m lyra_tools.cli``, stdin closed,
output piped) on real files; the BibTeX reader is called as a corpus load calls it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.corpus import SMALL_CORPUS
from fixtures.paths import REPO
from lyra_resources.corpus.bibtex_files import load_bibtex_file
from lyra_resources.corpus.bibtex_values import MAX_BRACE_DEPTH, MAX_VALUE_CHARS
from lyra_resources.corpus.local_corpus import LocalCorpus

QUESTION = "Does vitamin D supplementation reduce fracture risk?"
# a JSON line whose title holds the escape of a lone UTF-16 surrogate, which json.loads accepts
SURROGATE_LINE = (
    '{"doc_id": 9, "title": "Vitamin D and falls \\ud800 in care homes", '
    '"abstract": ["Vitamin D reduced falls and fractures."]}'
)
GOOD_BIB = (
    "@article{good,\n  title = {Vitamin D and hip fracture},\n  author = {Smith, Jane},\n  year = 2020,\n}\n"
)


def lyra(*args: str | Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """``lyra ARGS`` as a terminal-less process: stdin closed, stdout and stderr piped."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("LYRA_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "lyra_tools.cli", *map(str, args)],
        env=env,
        text=True,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
    )


def corpus_with_a_surrogate(folder: Path) -> Path:
    lines = [json.dumps(r) for r in SMALL_CORPUS]
    lines.insert(1, SURROGATE_LINE)  # line 2
    path = folder / "corpus.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def no_crash(result: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in result.stderr and "unexpected" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 0, result.stderr[-2000:]


# -- a lone surrogate ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_search_leaves_out_a_record_with_a_lone_surrogate_and_counts_it(tmp_path):
    corpus = corpus_with_a_surrogate(tmp_path)
    result = lyra("search", "vitamin D fracture", "--corpus", corpus, "--home", tmp_path / "h")
    no_crash(result)
    ids = [row.split("\t")[1] for row in result.stdout.splitlines()[1:]]
    assert ids[:2] == ["1", "2"] and "9" not in ids
    [note] = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert f"1 record(s) or block(s) of corpus {corpus} were left out" in note
    assert f"{corpus}:2: record 9 is not valid Unicode text: its title holds a lone UTF-16 surrogate" in note


@pytest.mark.slow
def test_a_run_completes_without_the_record_with_a_lone_surrogate_or_the_file_not_named_in_utf8(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    corpus_with_a_surrogate(folder)
    (folder / os.fsdecode(b"caf\xe9.jsonl")).write_text(json.dumps(SMALL_CORPUS[0]) + "\n")
    result = lyra("run", QUESTION, "--corpus", folder, "--home", tmp_path / "h")
    no_crash(result)
    assert "completed" in result.stdout and "✓ papers" in result.stdout
    assert "record 9 is not valid Unicode text" in result.stderr  # the note, and the run's log
    assert "caf\\udce9.jsonl: its name is not UTF-8 text; rename it" in result.stderr


def test_every_reader_refuses_a_surrogate_in_any_field_and_keeps_the_rest(tmp_path):
    openalex = {
        "id": "https://openalex.org/W1",
        "display_name": "Vitamin D",
        "abstract_inverted_index": {"Vitamin": [0], "\ud800": [1]},
    }
    recorded_s2 = {
        "url": "https://api.semanticscholar.org/x",
        "body": {
            "data": [
                {"paperId": "p1", "title": "Vitamin D", "authors": [{"name": "J \udfff Smith"}]},
                {"paperId": "p2", "title": "Calcium"},
            ]
        },
    }
    (tmp_path / "openalex.jsonl").write_text(
        json.dumps(openalex)
        + "\n"
        + json.dumps({"id": "https://openalex.org/W2", "display_name": "Calcium"})
        + "\n"
    )
    (tmp_path / "s2.json").write_text(json.dumps(recorded_s2))
    (tmp_path / "keys.jsonl").write_text('{"\\udc00": 1}\n' + json.dumps(SMALL_CORPUS[0]) + "\n")
    corpus = LocalCorpus.open(tmp_path)
    assert sorted(r.source_id for r in corpus.records) == ["1", "W2", "p2"]
    why = "is not valid Unicode text: its {} holds a lone UTF-16 surrogate (e.g. a JSON \\ud800 escape)"
    assert {(Path(i.location).name, i.reason) for i in corpus.issues} == {
        ("openalex.jsonl:1", "record W1 " + why.format("abstract")),
        ("s2.json:1", "body.data[0]: record p1 " + why.format("authors")),
        (
            "keys.jsonl:1",
            "unknown record shape (object with keys \\udc00); expected one of openalex, s2, scifact, beir",
        ),
    }  # the key quoted printably
    for issue in corpus.issues:
        issue.model_dump_json().encode("utf-8")


# -- BibTeX: nesting, huge fields, macros --------------------------------------------------------------


def test_an_entry_with_braces_nested_thousands_deep_is_left_out_in_one_line(tmp_path):
    nested = "{" * 16_000 + "x" + "}" * 16_000  # a 32 KB entry: quadratic brace handling took many seconds
    path = tmp_path / "refs.bib"
    path.write_text(f"@article{{deep,\n  title = {{Vitamin D}},\n  author = {{{nested}}},\n}}\n\n{GOOD_BIB}")
    result = load_bibtex_file(path)
    assert [r.source_id for _, r in result.records] == ["good"]
    [issue] = result.issues
    assert issue.location == f"{path}:1"
    assert (
        issue.reason
        == f"BibTeX entry deep left out: its author field nests braces more than {MAX_BRACE_DEPTH} deep"
    )


def test_a_huge_field_and_macros_that_double_each_other_are_left_out(tmp_path):
    doubling = "".join(f"@string{{m{i} = m{i - 1} # m{i - 1}}}\n" for i in range(1, 40))
    path = tmp_path / "refs.bib"
    path.write_text(
        f'@string{{m0 = "ab"}}\n{doubling}'
        f"@article{{bomb, title = m39}}\n"
        f"@article{{huge, title = {{{'word ' * (MAX_VALUE_CHARS // 4)}}}}}\n{GOOD_BIB}"
    )
    result = load_bibtex_file(path)
    assert [r.source_id for _, r in result.records] == ["good"]
    assert [i.reason for i in result.issues] == [
        f"BibTeX entry bomb left out: its title field is more than {MAX_VALUE_CHARS:,} characters long "
        "(with its macros expanded)",
        f"BibTeX entry huge left out: its title field is more than {MAX_VALUE_CHARS:,} characters long "
        "(with its macros expanded)",
    ]


def test_string_macros_and_concatenation_are_expanded(tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text(
        '@string{ev = "Vitamin D"}\n@STRING{Jbmr = {J. Bone {M}iner. Res.}}\n'
        '@string{both = ev # " and " # "calcium"}\n'
        '@article{a, title = ev # " supplementation", journal = jbmr, year = 2020,\n'
        '  abstract = both # { reduced } # "fractures", author = {Smith, J. and {Barnes and Noble}}}\n'
        '@article{b, title = "Trials of " # Undefined # {s}, note = {a # b}}\n'
    )
    result = load_bibtex_file(path)
    assert not result.issues
    first, second = (r for _, r in result.records)
    assert first.title == "Vitamin D supplementation" and first.venue == "J. Bone Miner. Res."
    assert first.abstract == "Vitamin D and calcium reduced fractures"
    assert first.authors == ["J. Smith", "Barnes and Noble"]
    assert second.title == "Trials of Undefineds"  # BibTeX keeps going; the name stays visible


@pytest.mark.slow
def test_search_reads_a_bibtex_file_with_hostile_entries(tmp_path):
    nested = "{" * 16_000 + "x" + "}" * 16_000
    path = tmp_path / "refs.bib"
    path.write_text(
        f"@article{{deep, author = {{{nested}}}, title = {{Deep}}}}\n"
        f'@string{{ev = "Vitamin D"}}\n@article{{macro, title = ev # " and hip fracture"}}\n'
    )
    result = lyra("search", "vitamin D fracture", "--corpus", path, "--home", tmp_path / "h")
    no_crash(result)
    rows = [row.split("\t") for row in result.stdout.splitlines()[1:]]
    assert [(r[1], r[6]) for r in rows] == [("macro", "Vitamin D and hip fracture")]
    [note] = [line for line in result.stderr.splitlines() if line.startswith("note: ")]
    assert "1 record(s) or block(s)" in note and "BibTeX entry deep left out" in note


# -- file names that are not UTF-8 ---------------------------------------------------------------------


def test_a_file_whose_name_is_not_utf8_is_left_out_and_named_printably(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "good.jsonl").write_text(json.dumps(SMALL_CORPUS[0]) + "\n")
    (folder / os.fsdecode(b"caf\xe9.jsonl")).write_text(json.dumps(SMALL_CORPUS[1]) + "\n")
    corpus = LocalCorpus.open(folder, cache_dir=tmp_path / "cache")
    assert [r.source_id for r in corpus.records] == ["1"]
    [issue] = corpus.issues
    assert issue.location == f"{folder}/caf\\udce9.jsonl:0"
    assert issue.reason == "not read: its name is not UTF-8 text; rename it"
