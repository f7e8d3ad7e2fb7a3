"""``lyra search``: one query's table, TREC runs, the same ranking as the assets, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from lyra_resources.corpus.search import read_queries
from lyra_tools.cli import app

cli = CliRunner()


def search(*args: str, home: Path):
    return cli.invoke(app, ["search", *args, "--home", str(home)])


def write_queries(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


@pytest.mark.slow
def test_one_query_prints_the_best_paper_first_with_each_stage(tmp_path, small_corpus):
    result = search(
        "--corpus", str(small_corpus), "vitamin D supplementation fracture risk", home=tmp_path / "h"
    )
    assert result.exit_code == 0, result.output
    header, *rows = [line.split("\t") for line in result.stdout.splitlines()]
    assert header == ["rank", "doc_id", "bm25", "embedding", "fused", "stage3", "title"]
    assert [r[1] for r in rows][:2] == ["1", "2"] and [r[0] for r in rows] == [
        str(i) for i in range(1, len(rows) + 1)
    ]
    assert rows[0][6].startswith("Vitamin D supplementation")
    # stage 3 by default: each paper's best-matching sentence, a cosine
    assert all(-1 <= float(r[5]) <= 1 for r in rows)
    scores = next(line for line in result.stderr.splitlines() if line.startswith("scores: "))
    assert (
        "BM25 = term-match score" in scores
        and "fused = 0.3 × BM25 scaled 0-1 per query + 0.7 × embedding" in scores
    )
    assert scores.endswith("stage 3: best sentence of the top 20, weight 0.5")
    as_json = search(
        "--corpus", str(small_corpus), "sleep memory", "--json", "--top", "1", home=tmp_path / "h"
    )
    [hit] = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert hit["doc_id"] == "3" and hit["rank"] == 1 and hit["rerank"] is not None
    assert hit["score"] == pytest.approx(2.0 + 0.5 * hit["rerank"] + 0.5 * hit["fused"])


@pytest.mark.slow
def test_run_file_is_a_valid_trec_run(tmp_path, small_corpus):
    queries = write_queries(
        tmp_path / "q.jsonl",
        [{"_id": "q1", "text": "vitamin D fracture"}, "", {"_id": 7, "text": "sleep loss memory"}],
    )
    run = tmp_path / "out.tsv"
    result = search(
        "--corpus", str(small_corpus), "--queries", str(queries), "--run", str(run), home=tmp_path / "h"
    )
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in run.read_text().splitlines()]
    assert rows and all(len(r) == 6 and r[1] == "Q0" and r[5] == "lyra-sentences" for r in rows)
    assert {r[2] for r in rows} <= {"1", "2", "3", "4"}
    for qid in ("q1", "7"):
        mine = [r for r in rows if r[0] == qid]
        assert [int(r[3]) for r in mine] == list(range(1, len(mine) + 1))
        scores = [float(r[4]) for r in mine]
        assert scores == sorted(scores, reverse=True)
    assert rows[0][2] == "1" and [r for r in rows if r[0] == "7"][0][2] == "3"


@pytest.mark.slow
def test_search_ranks_as_the_assets_shared_code_does(tmp_path, small_corpus):
    """The command's order is rank_texts over the papers (as fragment_ranking calls it, BM25 built
    over the texts themselves, with every paper's embedding given), and its BM25 stage is the
    corpus's own BM25 search order (test_task_papers.py: a task's papers are this ranking's)."""
    from lyra_resources.corpus.local_corpus import LocalCorpus, document_text
    from lyra_resources.corpus.search import CorpusSearch
    from lyra_resources.models.local_models import LocalModels
    from lyra_resources.models.text_ranking import bm25_scores, rank_texts
    from lyra_resources.settings.loading import load_settings
    from lyra_resources.store.lyra_store import LyraStore

    query = "vitamin D and hip fractures in women"
    corpus = LocalCorpus.open(small_corpus)
    settings = load_settings()
    store, models = LyraStore.at(tmp_path / "h"), LocalModels.configured(tmp_path / "h", settings)
    ranker = CorpusSearch(
        corpus, store=store, models=models, reranker=None, config=settings.ranking.ranking_config()
    )
    hits = ranker.search(query, 10)
    texts = [document_text(r) for r in corpus.records]
    asset_way = rank_texts(
        query,
        texts,
        bm25_scores(query, texts),
        store=store,
        models=models,
        reranker=None,
        config=settings.ranking.ranking_config(),
        vectors=ranker.vectors,
    )
    ranked = np.flatnonzero(asset_way["final_rank"] > 0)
    expected = [corpus.records[i].source_id for i in ranked[np.argsort(asset_way["final_rank"][ranked])]]
    assert [h.doc_id for h in hits] == expected
    assert np.allclose([h.fused for h in hits], [asset_way["fused_score"][int(d) - 1] for d in expected])
    assert ranker.vectors.shape[0] == len(corpus) and any(
        h.bm25 == 0 for h in hits
    )  # found by embedding alone
    by_bm25 = sorted((h for h in hits if h.bm25 > 0), key=lambda h: -h.bm25)
    assert [h.doc_id for h in by_bm25] == [r.source_id for r in corpus.search(query, 10)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--corpus", "{tmp}/missing.jsonl", "vitamin"], "--corpus"),
        (["--corpus", "{corpus}", "   "], "the query is empty"),
        (["vitamin"], "--corpus PATH is required"),
        (
            ["--corpus", "{corpus}", "--queries", "{tmp}/bad.jsonl", "--run", "{tmp}/out.tsv"],
            "bad.jsonl line 2",
        ),
        (
            ["--corpus", "{corpus}", "--queries", "{tmp}/good.jsonl", "--run", "{tmp}/nowhere/out.tsv"],
            "does not exist",
        ),
        (["--corpus", "{corpus}", "--queries", "{tmp}/good.jsonl"], "--queries and --run go together"),
        (
            ["--corpus", "{corpus}", "vitamin", "--queries", "{tmp}/good.jsonl", "--run", "{tmp}/out.tsv"],
            "not both or neither",
        ),
    ],
)
def test_bad_input_is_one_line_and_creates_nothing(tmp_path, small_corpus, args, message):
    write_queries(tmp_path / "good.jsonl", [{"_id": "q1", "text": "vitamin"}])
    write_queries(tmp_path / "bad.jsonl", [{"_id": "q1", "text": "vitamin"}, {"_id": "q2", "text": ""}])
    home = tmp_path / "home"
    result = search(*[a.format(tmp=tmp_path, corpus=small_corpus) for a in args], home=home)
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], result.stderr
    assert not home.exists() and not (tmp_path / "out.tsv").exists() and not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("not json", "not valid JSON"),
        ('{"text": "x"}', 'needs an "_id"'),
        ('{"_id": "a b", "text": "x"}', "no spaces"),
        ('{"_id": "q", "text": 3}', 'non-empty "text"'),
        ('["q", "x"]', 'needs an "_id"'),
    ],
)
def test_queries_file_names_the_bad_line(tmp_path, line, why):
    path = tmp_path / "q.jsonl"
    path.write_text('{"_id": "ok", "text": "fine"}\n' + line + "\n")
    with pytest.raises(ValueError, match="line 2") as caught:
        read_queries(path)
    assert why in str(caught.value)


def test_duplicate_and_empty_query_files(tmp_path):
    dup = write_queries(tmp_path / "d.jsonl", [{"_id": "q", "text": "a"}, {"_id": "q", "text": "b"}])
    with pytest.raises(ValueError, match="line 2: duplicate"):
        read_queries(dup)
    empty = write_queries(tmp_path / "e.jsonl", [""])
    with pytest.raises(ValueError, match="holds no query"):
        read_queries(empty)


@pytest.mark.slow
def test_sentence_match_scores_the_best_sentence_of_each_paper(tmp_path):
    from lyra_resources.models.local_models import LocalModels
    from lyra_resources.models.sentence_match import SentenceMatch
    from lyra_resources.settings.loading import load_settings
    from lyra_resources.store.lyra_store import LyraStore

    store, models = LyraStore.at(tmp_path / "h"), LocalModels.configured(tmp_path / "h", load_settings())
    match = SentenceMatch(models, store)
    buried = (
        "Vitamin D status was measured in 400 adults. Sleep loss impaired memory consolidation. "
        "Bone density did not differ."
    )
    scores = match.score("sleep loss impairs memory", [buried, "Bone density did not differ.", ""])
    alone = match.score("sleep loss impairs memory", ["Sleep loss impaired memory consolidation."])
    assert scores[0] == pytest.approx(alone[0], abs=1e-5)  # the buried sentence is what counts
    assert scores[0] > scores[1] + 0.3 and scores[2] == 0.0
    assert match.score("anything", []).shape == (0,)
