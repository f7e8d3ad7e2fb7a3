"""What another process meets of the home while Lyra works in it.

    .venv/bin/python -m bench.store_contention embed [--papers 400] [--cache-rows 60000] [--code DIR]
    .venv/bin/python -m bench.store_contention runs --corpus FILE [--code DIR]

- **embed**: a plain read-only DuckDB open (``duckdb.connect(path, read_only=True)`` and one count,
  no retry, as another tool does) in a loop every 20 ms beside `lyra corpus embed` (niced, as a task
  starts it) of ``--papers`` synthetic abstracts, in a home whose embedding cache already holds
  ``--cache-rows`` vectors of another corpus (a used home's file, not an empty one). Prints the opens,
  the failed ones, the runs of consecutive failures and the longest (seconds from the first failure
  to the next open that succeeds).
- **runs**: `lyra task list` run again and again as a fresh process while two `lyra run`s of
  ``--corpus`` work on one home; prints each list's wall seconds, the seconds it waited for the
  store's lock (``lock_waits``) and the lines it said about waiting.

``--code`` runs `lyra` from another checkout (e.g. ``git archive`` of an older commit) with this
interpreter, to compare before and after on one machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
WORDS = (
    "vitamin calcium fracture bone trial cohort risk reduced increased patients dose placebo randomized "
    "women older adults hip mortality exercise depression diabetes obesity"
).split()
QUESTIONS = (
    "Does calcium reduce fracture risk in postmenopausal women?",
    "Does vitamin D reduce hip fractures in older adults?",
)
# `lyra` in-process, then how long the store waited for locks (one line on stderr)
TIMED_LYRA = (
    "import atexit, sys, time\n"
    "started = time.monotonic()\n"
    "from lyra_resources.store.locks import lock_waits\n"
    "atexit.register(lambda: print('LOCK_WAITS', lock_waits().model_dump_json(), "
    "round(time.monotonic() - started, 2), file=sys.stderr))\n"
    "from lyra_tools.cli.entry_point import main\n"
    "main(sys.argv[1:])\n"
)


def lyra(code: Path, *args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "lyra_tools.cli", *args], cwd=code, **popen)


def synthetic_corpus(path: Path, papers: int) -> Path:
    rng = random.Random(1)
    with open(path, "w") as out:
        for i in range(papers):
            abstract = [" ".join(rng.choices(WORDS, k=25)) + "." for _ in range(6)]
            out.write(
                json.dumps({"doc_id": i, "title": " ".join(rng.choices(WORDS, k=8)), "abstract": abstract})
            )
            out.write("\n")
    return path


def used_home(home: Path, cache_rows: int) -> Path:
    """A home whose embedding cache holds ``cache_rows`` vectors of another corpus; its database."""
    sys.path.insert(0, str(REPO))
    from lyra_resources.store.lyra_store import LyraStore

    store = LyraStore.at(home)
    store.create_task("a task before")
    database = store.layout.database
    if cache_rows:
        vectors = np.random.default_rng(0).standard_normal((cache_rows, 384)).astype(np.float32)
        rows = pd.DataFrame(
            {
                "model": "other@fp32",
                "text_hash": [f"h{i}" for i in range(cache_rows)],
                "vector": list(vectors),
            }
        )
        with duckdb.connect(str(database)) as conn:
            conn.register("rows", rows)
            conn.execute("INSERT INTO embedding_cache (model, text_hash, vector) SELECT * FROM rows")
    return database


def beside_the_embedder(code: Path, work: Path, papers: int, cache_rows: int) -> dict:
    home, corpus = work / "home", synthetic_corpus(work / "corpus.jsonl", papers)
    database = used_home(home, cache_rows)
    embedder = subprocess.Popen(
        [
            "nice",
            "-n",
            "10",
            sys.executable,
            "-m",
            "lyra_tools.cli",
            "corpus",
            "embed",
            "--corpus",
            str(corpus),
        ],
        cwd=code,
        env={**os.environ, "LYRA_HOME": str(home)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    opens = failed = streaks = 0
    longest, failing_since, started = 0.0, None, time.monotonic()
    while embedder.poll() is None:
        began = time.monotonic()
        try:
            with duckdb.connect(str(database), read_only=True) as conn:
                conn.execute("SELECT count(*) FROM tasks").fetchone()
        except duckdb.Error:
            failed += 1
            if failing_since is None:
                failing_since, streaks = began, streaks + 1
        else:
            if failing_since is not None:
                longest, failing_since = max(longest, time.monotonic() - failing_since), None
        opens += 1
        time.sleep(0.02)
    return {
        "opens": opens,
        "failed": failed,
        "one_in": round(opens / failed) if failed else None,
        "failure_runs": streaks,
        "longest_failure_run_s": round(longest, 3),
        "embed_s": round(time.monotonic() - started, 1),
        "embed_exit": embedder.returncode,
        "database_mb": round(database.stat().st_size / 1e6, 1),
    }


def task_list(code: Path, home: Path) -> dict:
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", TIMED_LYRA, "task", "list", "--home", str(home)],
        cwd=code,
        capture_output=True,
        text=True,
    )
    waits = [line.split(" ")[1:] for line in done.stderr.splitlines() if line.startswith("LOCK_WAITS ")]
    return {
        "wall_s": round(time.monotonic() - began, 2),
        "exit": done.returncode,
        "lock_wait_s": json.loads(waits[0][0])["waited_s"] if waits else None,
        "in_process_s": float(waits[0][1]) if waits else None,
        "said": [line for line in done.stderr.splitlines() if "waiting for" in line],
    }


def beside_two_runs(code: Path, work: Path, corpus: Path) -> dict:
    home = work / "home"
    first = lyra(
        code, "run", QUESTIONS[0], "--corpus", str(corpus), "--home", str(home), stdout=subprocess.DEVNULL
    )
    first.wait()
    idle = [task_list(code, home) for _ in range(3)]
    runs = [
        lyra(
            code,
            "run",
            question,
            "--corpus",
            str(corpus),
            "--home",
            str(home),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for question in QUESTIONS
    ]
    busy = []
    while any(run.poll() is None for run in runs):
        busy.append(task_list(code, home))
    walls = [b["wall_s"] for b in busy]
    inside = [b["in_process_s"] or 0.0 for b in busy]
    return {
        "idle_wall_s": [i["wall_s"] for i in idle],
        "lists_during_runs": len(busy),
        "wall_s_median": statistics.median(walls) if walls else None,
        "wall_s_max": max(walls, default=None),
        "in_process_s_median": statistics.median(inside) if inside else None,
        "in_process_s_max": max(inside, default=None),
        "lists_over_1s_in_process": sum(i > 1.0 for i in inside),
        "in_process_less_lock_waits_s_max": max(
            (round((b["in_process_s"] or 0.0) - (b["lock_wait_s"] or 0.0), 2) for b in busy), default=None
        ),
        "lock_wait_s_max": max((b["lock_wait_s"] or 0.0 for b in busy), default=None),
        "lists_that_said_why": sum(bool(b["said"]) for b in busy),
        "said": sorted({line for b in busy for line in b["said"]})[:3],
        "run_exits": [run.returncode for run in runs],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mode", choices=("embed", "runs"))
    parser.add_argument("--code", type=Path, default=REPO, help="the checkout `lyra` runs from")
    parser.add_argument("--papers", type=int, default=400)
    parser.add_argument("--cache-rows", type=int, default=60_000)
    parser.add_argument("--corpus", type=Path, help="the runs' corpus (mode runs)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lyra-contention-") as work:
        if args.mode == "embed":
            result = beside_the_embedder(args.code.resolve(), Path(work), args.papers, args.cache_rows)
        else:
            if args.corpus is None:
                parser.error("runs needs --corpus")
            result = beside_two_runs(args.code.resolve(), Path(work), args.corpus.resolve())
    print(json.dumps({"mode": args.mode, "code": str(args.code), **result}, indent=2))


if __name__ == "__main__":
    main()
