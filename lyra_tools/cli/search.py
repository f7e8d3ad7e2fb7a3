"""``lyra search``: rank a local corpus's papers for a query, or write a TREC run for a file of
queries, with the same three stages (and the same code) as a task's ranking.

One query prints the best papers with each stage's score: a Rich table on a terminal, tab-separated
lines under a header line in a pipe, one JSON object a line with ``--json``; a line (the table's
caption, or stderr in a pipe) says what each score is. ``--queries FILE.jsonl --run OUT.tsv``
writes ``qid Q0 docid rank score tag`` lines that trec_eval, pytrec_eval or ir_measures score
against a qrels file. Document embeddings go through the home's cache: only the first search of a
corpus embeds (a progress line says so).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from lyra_core.untrusted_text import json_line, tsv_cell
from lyra_resources.home import HomeLayout
from lyra_resources.settings.pipeline import SettingsError
from lyra_tools.cli.common import (
    HomeOption,
    check_input_file,
    command_settings,
    console,
    err,
    fail,
    home_root,
    open_store,
    output_problem,
    untrusted,
    write_output,
)

if TYPE_CHECKING:  # the search itself (models, corpora) is imported by `lyra search` when it runs
    from lyra_core.ranking import RankingConfig
    from lyra_resources.corpus.search import Hit
    from lyra_resources.progress import StageProgress

app = typer.Typer()
TITLE_CHARS = 70


@contextlib.contextmanager
def _embedding_notes() -> Iterator[None]:
    """A line on stderr for each long embedding pass (the first search of a corpus embeds its papers)."""
    from lyra_resources.progress import reporting_to

    def sink(update: StageProgress) -> None:
        if update.label == "embedding" and update.finished:
            err.print(untrusted(f"{update.summary()} (cached for the next search)"), highlight=False)

    with reporting_to(sink):
        yield


PIPE_COLUMNS = ("rank", "doc_id", "bm25", "embedding", "fused", "stage3", "title")


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def scores_line(ranking: RankingConfig, rerank_note: str) -> str:
    """What each score column is, in one line."""
    return (
        f"scores: BM25 = term-match score (unbounded); embedding = cosine of query and paper (-1 to 1); "
        f"fused = {ranking.bm25_weight:g} × BM25 scaled 0-1 per query + {ranking.embedding_weight:g} × "
        f"embedding, the order where stage 3 did not score; stage 3: {rerank_note}"
    )


def _print_hits(hits: list[Hit], scores: str, as_json: bool) -> None:
    if as_json:
        for hit in hits:
            print(json_line(hit.model_dump_json()))
        return
    if not console.is_terminal:
        print("\t".join(PIPE_COLUMNS))
        for h in hits:
            print(
                "\t".join(
                    [
                        str(h.rank),
                        tsv_cell(h.doc_id),
                        f"{h.bm25:.3f}",
                        _fmt(h.embedding),
                        _fmt(h.fused),
                        _fmt(h.rerank),
                        tsv_cell(h.title),
                    ]
                )
            )
        err.print(untrusted(scores), highlight=False, soft_wrap=True)
        return
    table = Table(
        "rank",
        "doc id",
        "title",
        "BM25",
        "embedding",
        "fused",
        "stage 3",
        caption=untrusted(scores),
        caption_justify="left",
    )
    for h in hits:
        title = h.title if len(h.title) <= TITLE_CHARS else h.title[: TITLE_CHARS - 1] + "…"
        table.add_row(
            str(h.rank),
            untrusted(h.doc_id),
            untrusted(title),
            f"{h.bm25:.2f}",
            _fmt(h.embedding),
            _fmt(h.fused),
            _fmt(h.rerank),
        )
    console.print(table)


@app.command("search")
def search(
    query: Annotated[
        str | None, typer.Argument(help="the query (or --queries FILE.jsonl)", show_default=False)
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option("--corpus", help="local corpus file or folder (JSONL, BibTeX)", show_default=False),
    ] = None,
    top: Annotated[
        int | None,
        typer.Option("--top", min=1, help="papers per query (default 10; 100 in a run)", show_default=False),
    ] = None,
    queries: Annotated[
        Path | None,
        typer.Option("--queries", help='BEIR-style JSONL, {"_id", "text"} a line', show_default=False),
    ] = None,
    run: Annotated[
        Path | None,
        typer.Option("--run", help="write a TREC run (qid Q0 docid rank score tag) here", show_default=False),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per paper and line")] = False,
    home: HomeOption = None,
) -> None:
    """Rank a local corpus's papers for QUERY (BM25 → embedding fusion → reranker when configured)."""
    from lyra_resources.corpus.search import hybrid_search, read_queries
    from lyra_resources.models.local_models import LocalModels
    from lyra_resources.models.sentence_match import SentenceMatch
    from lyra_resources.sources.literature import LiteratureSources
    from lyra_resources.task_input import TaskInputError, check_corpus

    try:
        if corpus is None:
            raise ValueError("--corpus PATH is required: the corpus file or folder to search")
        if (query is None) == (queries is None):
            raise ValueError(
                "give either a QUERY or --queries FILE.jsonl (with --run OUT.tsv), not both or neither"
            )
        if (queries is None) != (run is None):
            raise ValueError("--queries and --run go together: --queries FILE.jsonl --run OUT.tsv")
        if query is not None and not " ".join(query.split()):
            raise ValueError("the query is empty; give the words to search for")
        if run is not None and (problem := output_problem(run, "--run", home)):
            raise ValueError(problem)
        if queries is not None:
            check_input_file(queries, "--queries", "the queries file")
        todo = read_queries(queries) if queries is not None else [("query", " ".join(query.split()))]
        config = command_settings()
        layout = HomeLayout(root=home_root(home, create=False))
        literature = LiteratureSources.configured(layout.cache, config)
        notes = check_corpus(literature, str(corpus), "--corpus")
    except (ValueError, TaskInputError, SettingsError) as exc:
        raise fail(str(exc)) from None
    opened = literature.corpus(str(corpus))
    models, store = LocalModels.configured(layout.root, config), open_store(home)
    ranker = hybrid_search(
        opened,
        store=store,
        models=models,
        settings=config,  # as a task's papers are ranked
        on_embedding=lambda step: err.print(
            untrusted(step.line(str(opened.path)) + " …"), highlight=False, soft_wrap=True
        ),
    )
    reranker, rerank_note, ranking = ranker.reranker, ranker.stage3_note, ranker.config
    with _embedding_notes():
        if run is None:
            _print_hits(ranker.search(todo[0][1], top or 10), scores_line(ranking, rerank_note), as_json)
            _print_notes(notes)
            return
        ranker.vectors  # noqa: B018  a TREC run ranks over the whole corpus: its figures do not hang on query order
        tag = (
            "lyra-fusion"
            if reranker is None
            else "lyra-sentences"
            if isinstance(reranker, SentenceMatch)
            else "lyra-rerank"
        )
        lines = [
            f"{qid} Q0 {h.doc_id} {h.rank} {h.score:.6f} {tag}\n"
            for qid, text in todo
            for h in ranker.search(text, top or 100)
        ]
    write_output(
        run, "".join(lines), "--run", home
    )  # whole or not at all: a failed search leaves no half run
    err.print(
        untrusted(
            f"wrote {len(lines):,} lines for {len(todo):,} queries to {run} (tag {tag}; stage 3: "
            f"{rerank_note})"
        ),
        highlight=False,
        soft_wrap=True,
    )
    _print_notes(notes)


def _print_notes(notes: list[str]) -> None:
    """The corpus check's notes (records left out, lines repaired), after the results: a search that
    is refused later still says one line."""
    for note in notes:
        err.print(f"note: {untrusted(note)}", highlight=False, soft_wrap=True)
