"""Speed figures of ``bench.ranking``: corpus embedding throughput against the model's own peak,
per-stage query latency, and a task's first run against an unchanged re-run."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from lyra_resources.models.local_models import LocalModels
from lyra_resources.store.lyra_store import LyraStore

QUESTION = "Does vitamin D supplementation reduce fracture risk?"
_ASSET_LINE = re.compile(r"^✓ (\w+)\s+(?:(\d+) rows|kept \(unchanged\))?\s*([\d.]+)s")


def embedding_throughput(
    models: LocalModels, store: LyraStore, texts: list[str], sample: int = 512
) -> tuple[float, float]:
    """docs/s of the model alone (its own length-sorted batches, nothing stored) and docs/s
    through Lyra's cached encoder into an empty store, on the same seeded sample of texts."""
    chosen = random.Random(5).sample(texts, min(sample, len(texts)))
    embedder = models.embedder()
    embedder.encode(chosen[:32])  # load and warm up
    start = time.perf_counter()
    embedder.encode(chosen)
    peak = len(chosen) / (time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as tmp:
        fresh = LyraStore.at(Path(tmp))
        start = time.perf_counter()
        models.cached_encoder(fresh)(chosen)
        through = len(chosen) / (time.perf_counter() - start)
    return peak, through


def latency_line(stage: str, seconds: list[float]) -> str:
    ms = np.asarray(seconds) * 1000
    return (
        f"  {stage + ' latency:':<26} p50 {np.percentile(ms, 50):8.1f} ms   p95 {np.percentile(ms, 95):8.1f} ms"
        f"   ({len(ms)} queries)"
    )


def _run(args: list[str]) -> tuple[float, dict[str, float], str]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "lyra_tools.cli", *args], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"lyra {' '.join(args[:2])} failed:\n{proc.stderr[-2000:]}")
    assets = {m.group(1): float(m.group(3)) for m in map(_ASSET_LINE.match, proc.stdout.splitlines()) if m}
    return wall, assets, proc.stdout


def rerun_timing(workdir: Path, corpus: Path, papers: int = 100) -> None:
    """A first ``lyra run`` of a ``papers``-paper task in a fresh home (nothing cached: the corpus
    index, every embedding and NLI judgement computed), ``lyra task run`` of it unchanged (nothing it
    reads changed: the run is skipped), after its corpus file is rewritten as it was (the run runs;
    every asset whose code and inputs are unchanged keeps its rows) and ``lyra task run --force``
    (every asset computes again on warm caches), each a fresh process, wall clock included. The task
    reads a copy of ``corpus`` in ``workdir``, which the bench touches."""
    home = workdir / "rerun-home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    library = shutil.copyfile(corpus, home / "corpus.jsonl")
    print(f"\nre-run of an unchanged task ({QUESTION!r}, {papers} papers, fresh home {home}):", flush=True)
    first_wall, first, out = _run(
        ["run", QUESTION, "--corpus", str(library), "--papers", str(papers), "--home", str(home)]
    )
    task_id = out.split()[0]
    same_wall, same, same_out = _run(["task", "run", task_id, "--home", str(home)])
    if "unchanged since run" not in same_out:
        raise SystemExit(f"the unchanged re-run ran:\n{same_out[-2000:]}")
    os.utime(library)  # the same corpus, a newer file: the task runs, its assets compare their inputs
    touched_wall, touched, touched_out = _run(["task", "run", task_id, "--home", str(home)])
    kept = touched_out.count("kept (unchanged)")
    forced_wall, forced, _ = _run(["task", "run", task_id, "--force", "--home", str(home)])
    print(f"  {'asset':<22} {'first run':>10} {'re-run':>10} {'touched':>10} {'--force':>10}")
    for asset, seconds in first.items():
        print(
            f"  {asset:<22} {seconds:9.1f}s {same.get(asset, 0.0):9.1f}s {touched.get(asset, float('nan')):9.1f}s "
            f"{forced.get(asset, float('nan')):9.1f}s"
        )
    total = sum(first.values())
    print(
        f"  {'assets, summed':<22} {total:9.1f}s {sum(same.values()):9.1f}s {sum(touched.values()):9.1f}s "
        f"{sum(forced.values()):9.1f}s   (re-run ×{sum(same.values()) / total:.3f}, touched "
        f"×{sum(touched.values()) / total:.3f}, --force ×{sum(forced.values()) / total:.3f})"
    )
    print(f"  assets that kept their rows after the corpus file was touched: {kept}")
    print(
        f"  {'wall clock (process)':<22} {first_wall:9.1f}s {same_wall:9.1f}s {touched_wall:9.1f}s "
        f"{forced_wall:9.1f}s   "
        f"(re-run ×{same_wall / first_wall:.3f}, touched ×{touched_wall / first_wall:.3f}, "
        f"--force ×{forced_wall / first_wall:.3f}; target: re-run ≤ ×0.10)"
    )
