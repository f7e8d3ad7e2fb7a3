"""The background embedder (`lyra corpus embed`) leaves the home's DuckDB file to other processes:
it writes its vectors a batch of papers at a time (``corpus_vectors.CHUNK``), each in one short
transaction, not a transaction or two per chunk, so a plain read-only open by another process
meets it rarely and never for long. When a task starts, what it embedded is stored before it waits.
A real `lyra corpus embed` process with the packaged embedder, a real DuckDB file opened read-only
from this process in a loop beside it."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from lyra_resources.corpus.corpus_vectors import CHUNK
from lyra_resources.home import HomeLayout
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli.corpus import YIELDING_CHUNK

PAPERS = CHUNK + 2 * YIELDING_CHUNK + 5  # one full batch and a part


def corpus(path: Path, papers: int = PAPERS) -> Path:
    rows = [
        {
            "doc_id": i,
            "title": f"Cohort {i}",
            "abstract": [f"We followed {100 + i} adults for {i % 9} years."],
        }
        for i in range(papers)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def embed(home: Path, library: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lyra_tools.cli",
            "corpus",
            "embed",
            "--corpus",
            str(library),
            "--home",
            str(home),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "LYRA_HOME": str(home)},
    )


def rows_seen(database: Path) -> int | None:
    """The embedding cache's rows, read as a plain read-only open by another process does; None
    while the embedder holds the file."""
    try:
        conn = duckdb.connect(str(database), read_only=True)
    except duckdb.IOException:
        return None
    try:
        return conn.execute("SELECT count(*) FROM embedding_cache").fetchone()[0]
    finally:
        conn.close()


def test_the_embedder_writes_a_batch_at_a_time_and_a_read_only_open_beside_it_waits_only_a_moment(tmp_path):
    home = tmp_path / "home"
    LyraStore.at(home).create_task("the schema, before the embedder starts")
    database = HomeLayout(root=home).database
    process = embed(home, corpus(tmp_path / "library.jsonl"))
    counts: set[int] = set()
    opens = failures = 0
    longest = 0.0
    failing_since: float | None = None
    while process.poll() is None:
        started = time.monotonic()
        seen = rows_seen(database)
        opens += 1
        if seen is None:
            failures += 1
            failing_since = failing_since or started
        else:
            counts.add(seen)
            if failing_since is not None:
                longest = max(longest, time.monotonic() - failing_since)
                failing_since = None
        time.sleep(0.01)
    out, err = process.communicate()
    assert process.returncode == 0, err[-2000:]
    assert f"all {PAPERS:,} papers embedded" in out
    assert rows_seen(database) == PAPERS
    # the rows came a batch at a time: never a chunk's worth (32, 64, …) in between
    assert counts <= {0, CHUNK, PAPERS}, sorted(counts)
    assert opens > 50 and failures < opens / 10
    assert longest < 2.0  # the longest run of failed opens: one short transaction, not a chunk's work


def test_when_a_task_starts_the_embedder_stores_what_it_embedded_before_it_waits(tmp_path):
    home = tmp_path / "home"
    LyraStore.at(home).create_task("the schema, before the embedder starts")
    layout = HomeLayout(root=home)
    papers = 3 * YIELDING_CHUNK + 5
    process = embed(home, corpus(tmp_path / "library.jsonl", papers))
    try:
        lines = iter(process.stderr.readline, "")
        assert "embedding 32 papers" in next(line for line in lines if "embedding" in line)
        layout.foreground_lock.parent.mkdir(parents=True, exist_ok=True)
        with open(layout.foreground_lock, "a") as run:  # a task run starts in the home (`foreground`)
            fcntl.flock(run, fcntl.LOCK_SH)
            assert "embedding waits" in next(line for line in lines if "waits" in line or "embedded" in line)
            stored = rows_seen(layout.database)
            assert stored is not None and 0 < stored < CHUNK and stored % YIELDING_CHUNK == 0
            time.sleep(1.5)  # it waits: nothing more is embedded while the task runs
            assert rows_seen(layout.database) == stored and process.poll() is None
            fcntl.flock(run, fcntl.LOCK_UN)
        out, err = process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err[-2000:]
    assert rows_seen(layout.database) == papers
