"""A new library's first question does not wait for the whole library to be embedded: a task
embeds its question's BM25 best papers at once and answers; the rest of the corpus is embedded
afterwards (`lyra corpus embed`, which the task starts in the background). Vectors of two
encodings of the embedder are cached apart and never ranked together. Real `lyra` processes, the
packaged embedder, real DuckDB homes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from lyra_core.ranking import cosine
from lyra_resources.corpus.corpus_vectors import EmbeddingStep
from lyra_resources.corpus.local_corpus import LocalCorpus, document_text
from lyra_resources.corpus.search import CorpusSearch
from lyra_resources.models.content_cache import cached_embedding_rows
from lyra_resources.models.local_models import LocalModels
from lyra_resources.settings.loading import load_settings
from lyra_resources.store.lyra_store import LyraStore

QUESTION = "Does vitamin D supplementation reduce hip fracture risk?"
TOPICS = [
    "sleep and memory",
    "influenza vaccination",
    "glucose tolerance",
    "statins and cholesterol",
    "air pollution and asthma",
    "exercise and depression",
    "smoking and lung cancer",
    "salt and blood pressure",
]


def library(path: Path) -> Path:
    """Thirty papers: four about vitamin D and fractures, the others about other things."""
    rows = [
        {
            "doc_id": i,
            "title": f"Vitamin D and hip fracture risk, trial {i}",
            "abstract": [f"In trial {i}, vitamin D supplementation reduced hip fractures in older adults."],
        }
        for i in range(1, 5)
    ]
    rows += [
        {
            "doc_id": 100 + i,
            "title": f"A cohort study of {TOPICS[i % len(TOPICS)]}, number {i}",
            "abstract": [f"We followed {200 + i} adults to study {TOPICS[i % len(TOPICS)]}."],
        }
        for i in range(26)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def settings_file(path: Path, embed_rest: str) -> Path:
    # a question embeds its BM25 best max(first_question_papers, bm25_top_k): 3 of the 30 here
    path.write_text(f'ranking:\n  bm25_top_k: 2\n  first_question_papers: 3\n  embed_rest: "{embed_rest}"\n')
    return path


def lyra(*args: str, settings: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "LYRA_SETTINGS": str(settings)}
    return subprocess.run(
        [sys.executable, "-m", "lyra_tools.cli", *args], capture_output=True, text=True, env=env, timeout=1200
    )


def embedded(home: Path, corpus: Path, models: LocalModels | None = None) -> int:
    """How many of the corpus's papers the home's embedding cache holds vectors of."""
    texts = [document_text(r) for r in LocalCorpus.open(corpus).records]
    found, _ = cached_embedding_rows(LyraStore.at(home), (models or LocalModels()).embedding_key, texts)
    return int(found.size)


@pytest.mark.slow  # two `lyra run`s of a 30-paper task: the embedder and the NLI model
def test_a_task_answers_before_its_corpus_is_wholly_embedded_and_a_later_command_embeds_the_rest(tmp_path):
    corpus = library(tmp_path / "library.jsonl")
    home = tmp_path / "home"
    settings = settings_file(tmp_path / "settings.yaml", "off")
    run = lyra(
        "run", QUESTION, "--corpus", str(corpus), "--papers", "3", "--home", str(home), settings=settings
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "completed" in run.stdout
    # the question's best papers by words were embedded, not the library: 4 share its words, 3 were taken
    assert 0 < embedded(home, corpus) < 30
    assert "in the background" not in run.stderr  # switched off: nothing was started
    rest = lyra("corpus", "embed", "--corpus", str(corpus), "--home", str(home), settings=settings)
    assert rest.returncode == 0, rest.stderr[-2000:]
    assert embedded(home, corpus) == 30
    assert "all 30 papers embedded" in rest.stdout
    again = lyra("corpus", "embed", "--corpus", str(corpus), "--home", str(home), settings=settings)
    assert "(0 now)" in again.stdout  # nothing left: nothing embedded twice

    background = tmp_path / "home-background"
    settings = settings_file(tmp_path / "settings-background.yaml", "background")
    run = lyra(
        "run",
        QUESTION,
        "--corpus",
        str(corpus),
        "--papers",
        "3",
        "--home",
        str(background),
        settings=settings,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "embedding the rest of corpus" in run.stderr and "in the background" in run.stderr
    waited = 0.0
    while embedded(background, corpus) < 30 and waited < 900:  # the background process ends by itself
        time.sleep(2)
        waited += 2
    assert embedded(background, corpus) == 30, (background / "logs" / "corpus-embed.log").read_text()[-2000:]


def test_a_question_embeds_its_best_papers_by_words_and_ranks_with_every_paper_embedded_before(tmp_path):
    corpus = LocalCorpus.open(library(tmp_path / "library.jsonl"))
    store, models, config = (
        LyraStore.at(tmp_path / "home"),
        LocalModels(),
        load_settings().ranking.ranking_config(),
    )
    steps: list[EmbeddingStep] = []
    search = CorpusSearch(
        corpus,
        store=store,
        models=models,
        reranker=None,
        config=config.model_copy(update={"bm25_top_k": 2}),
        on_embedding=steps.append,
        first_papers=3,
    )
    hits = search.search(QUESTION, 10)
    # 3 papers embedded at once, for the reason the line gives; the 27 others are left for later
    assert [(s.embedding, s.remaining, s.reason) for s in steps] == [(3, 27, "question")]
    assert "does not wait for the whole corpus" in steps[0].line("library.jsonl")
    assert {h.doc_id for h in hits} <= {"1", "2", "3", "4"}  # only papers embedded or sharing its words
    assert search.embeddings.embed_rest(chunk=10) == 27
    assert [s.embedding for s in steps[1:]] == [10, 10, 7] and steps[-1].remaining == 0
    later = CorpusSearch(
        corpus, store=store, models=models, reranker=None, config=config, on_embedding=steps.append
    )
    later.search("Do adults who exercise have less depression?", 10)
    assert len(steps) == 4  # every paper is cached: the next question embeds none


def test_vectors_of_another_encoding_are_never_read_back_nor_ranked_with_the_new_ones(tmp_path):
    corpus = LocalCorpus.open(library(tmp_path / "library.jsonl"))
    store, config = LyraStore.at(tmp_path / "home"), load_settings().ranking.ranking_config()
    fp32, int8 = LocalModels(), LocalModels(embedder_precision="int8")
    assert fp32.embedding_key != int8.embedding_key
    CorpusSearch(corpus, store=store, models=fp32, reranker=None, config=config).embeddings.embed_rest()
    assert embedded(store.layout.root, corpus.path, fp32) == 30
    steps: list[EmbeddingStep] = []
    search = CorpusSearch(
        corpus, store=store, models=int8, reranker=None, config=config, on_embedding=steps.append
    )
    hits = search.search(QUESTION, 5)
    # the int8 encoding read none of the fp32 vectors: it embedded the whole (small) library itself
    assert [(s.embedding, s.reason) for s in steps] == [(30, "question")]
    assert embedded(store.layout.root, corpus.path, int8) == 30
    texts = {r.source_id: document_text(r) for r in corpus.records}

    def cached(models: LocalModels, text: str) -> np.ndarray:
        found, vectors = cached_embedding_rows(store, models.embedding_key, [text])
        assert found.size == 1
        return vectors[0]

    for hit in hits:  # each score is the cosine of two int8 vectors, never of an int8 and an fp32 one
        assert hit.embedding == pytest.approx(
            float(cosine(cached(int8, QUESTION), cached(int8, texts[hit.doc_id])[None, :])[0]), abs=1e-6
        )
    mixed = [float(cosine(cached(int8, QUESTION), cached(fp32, texts[h.doc_id])[None, :])[0]) for h in hits]
    assert any(abs(m - h.embedding) > 1e-4 for m, h in zip(mixed, hits, strict=True))


def test_the_background_embedding_waits_while_a_task_runs_in_the_home(tmp_path):
    import threading

    from lyra_resources.corpus.foreground import foreground
    from lyra_resources.home import HomeLayout

    corpus = library(tmp_path / "library.jsonl")
    home = tmp_path / "home"
    home.mkdir()
    settings = settings_file(tmp_path / "settings.yaml", "off")
    env = {**os.environ, "LYRA_SETTINGS": str(settings)}
    said: list[str] = []
    waiting = threading.Event()

    def read_errors(stream) -> None:
        for line in stream:
            said.append(line)
            if "a task is running in this home" in line:
                waiting.set()

    with foreground(HomeLayout(root=home)):  # as a task's run holds it while it runs
        rest = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lyra_tools.cli",
                "corpus",
                "embed",
                "--corpus",
                str(corpus),
                "--home",
                str(home),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        reader = threading.Thread(target=read_errors, args=(rest.stderr,), daemon=True)
        reader.start()
        deadline = time.monotonic() + 300
        while not waiting.is_set() and rest.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert waiting.is_set(), "".join(said)[-2000:]  # it said it waits, and did not finish meanwhile
        time.sleep(3)
        assert rest.poll() is None and embedded(home, corpus) == 0  # waiting, nothing embedded
    out = rest.stdout.read()
    assert rest.wait(timeout=600) == 0, "".join(said)[-2000:]
    assert embedded(home, corpus) == 30 and "all 30 papers embedded" in out
