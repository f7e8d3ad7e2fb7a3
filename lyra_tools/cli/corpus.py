"""``lyra corpus embed``: embed every paper of a local corpus not embedded yet in the home, so that
later questions find papers by meaning alone. A question embeds only its own BM25 best papers
(``lyra_resources.corpus.corpus_vectors``); a task that leaves some of its corpus unembedded starts
this command in the background once its answer is printed (``embed_rest_in_background``), at a
low priority, one per corpus and home at a time."""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lyra_resources.home import HomeLayout
from lyra_resources.settings.pipeline import SettingsError
from lyra_tools.cli.common import (
    HomeOption,
    command_settings,
    console,
    err,
    fail,
    home_root,
    open_store,
    untrusted,
)

if TYPE_CHECKING:
    from lyra_resources.corpus.corpus_vectors import CorpusVectors

app = typer.Typer(help="Work on a local corpus as a whole.", no_args_is_help=True)

# The background embedder yields the CPU to the commands a person waits for: niced, and waiting
# between chunks while a task runs (lyra_resources.corpus.foreground); a chunk is ~6 s of the
# embedder on 2 cores, the most a task that starts meanwhile shares the CPU with it.
BACKGROUND_NICENESS = 10
YIELDING_CHUNK = 32


@contextlib.contextmanager
def embedding_lock(layout: HomeLayout, fingerprint: str) -> Iterator[bool]:
    """Whether this process holds the home's lock on embedding the corpus ``fingerprint`` (False:
    another process is embedding it); the lock goes with the process, however it ends."""
    folder = layout.cache / "corpus"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"embedding-{fingerprint}.lock", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True


@app.command("embed")
def embed(
    corpus: Annotated[Path, typer.Option("--corpus", help="local corpus file or folder (JSONL, BibTeX)")],
    home: HomeOption = None,
) -> None:
    """Embed every paper of CORPUS not embedded yet in the home (chunk by chunk: stopping is safe,
    the next run goes on where this one stopped; while a task runs in the home, it waits)."""
    from lyra_resources.corpus.corpus_vectors import CorpusVectors
    from lyra_resources.corpus.foreground import wait_for_idle
    from lyra_resources.corpus.local_corpus import document_text
    from lyra_resources.models.local_models import LocalModels
    from lyra_resources.sources.literature import LiteratureSources
    from lyra_resources.task_input import TaskInputError, check_corpus

    try:
        config = command_settings()
        layout = HomeLayout(root=home_root(home, create=False))
        literature = LiteratureSources.configured(layout.cache, config)
        check_corpus(literature, str(corpus), "--corpus")
    except (ValueError, TaskInputError, SettingsError) as exc:
        raise fail(str(exc)) from None
    opened = literature.corpus(str(corpus))
    models, store = LocalModels.configured(layout.root, config), open_store(home)
    where = str(opened.path)
    vectors = CorpusVectors(
        [document_text(r) for r in opened.records],
        store=store,
        models=models,
        pool=config.ranking.first_question_papers,
        on_embedding=lambda step: err.print(untrusted(step.line(where)), highlight=False, soft_wrap=True),
    )
    with embedding_lock(layout, opened.fingerprint) as mine:
        if not mine:
            console.print(
                untrusted(f"corpus {where} is being embedded by another process of this home already"),
                highlight=False,
                soft_wrap=True,
            )
            return
        done = vectors.embed_rest(
            chunk=YIELDING_CHUNK,
            before_chunk=lambda: wait_for_idle(layout, on_wait=lambda: waiting(vectors)),
        )
    console.print(
        untrusted(f"corpus {where}: all {len(opened):,} papers embedded ({done:,} now)"),
        highlight=False,
        soft_wrap=True,
    )


def waiting(vectors: CorpusVectors) -> None:
    """A task started in the home: what is embedded is stored (the task finds it), and the wait said."""
    vectors.flush()
    err.print("a task is running in this home: embedding waits until it ends", highlight=False)


def unembedded(corpus_paths: list[str], home: Path | None) -> list[str]:
    """Those of ``corpus_paths`` with papers not embedded yet in the home (none when the settings
    rank by BM25 alone or switch the background embedding off)."""
    from lyra_resources.corpus.corpus_vectors import CorpusVectors
    from lyra_resources.corpus.local_corpus import document_text
    from lyra_resources.models.local_models import LocalModels
    from lyra_resources.sources.literature import LiteratureSources

    config = command_settings()
    if not config.ranking.dense_top_k or config.ranking.embed_rest == "off":
        return []
    layout = HomeLayout(root=home_root(home))
    literature = LiteratureSources.configured(layout.cache, config)
    models, store = LocalModels.configured(layout.root, config), open_store(home)
    out = []
    for path in corpus_paths:
        try:
            opened = literature.corpus(path)
        except (OSError, ValueError):
            continue  # a corpus gone since the task read it: nothing to embed
        texts = [document_text(r) for r in opened.records]
        if CorpusVectors(texts, store=store, models=models, pool=1).missing().size:
            out.append(path)
    return out


def embed_rest_in_background(corpus_paths: list[str], home: Path | None) -> None:
    """Start `lyra corpus embed` for each of ``corpus_paths`` not wholly embedded yet, detached and
    at a low priority, and say so in one line each; its output goes to the home's log."""
    layout = HomeLayout(root=home_root(home))
    for path in unembedded(corpus_paths, home):
        log = layout.root / "logs" / "corpus-embed.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a") as out:
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "lyra_tools.cli",
                    "corpus",
                    "embed",
                    "--corpus",
                    path,
                    "--home",
                    str(layout.root),
                ],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,
                preexec_fn=lambda: os.nice(BACKGROUND_NICENESS),
            )
        err.print(
            untrusted(
                f"embedding the rest of corpus {path} in the background (`lyra corpus embed`; "
                f"log: {log}), so later questions find papers by meaning alone"
            ),
            highlight=False,
            soft_wrap=True,
        )
