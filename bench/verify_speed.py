"""`lyra verify` on a batch of SciFact train claims against the 5,183-abstract corpus: wall time
of the whole command (task, Dagster run, results file) and of each asset, on a home whose
embedding cache already holds the corpus's fragments (the corpus is embedded once, e.g. by
``bench.verification`` or a first run; ``--cold`` measures that first run instead).

    .venv/bin/python -m bench.verify_speed [--claims 300] [--home DIR] [--cold]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

from bench.common import read_jsonl, require_data
from lyra_assets.execution.runs import open_instance, task_runs
from lyra_resources.home import resolve_home
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli import app


def step_seconds(home: Path, task_id: str) -> dict[str, float]:
    """Seconds from each step's start to its success in the task's latest Dagster run."""
    from dagster import DagsterEventType

    with open_instance(home) as instance:
        run = task_runs(instance, task_id, limit=1)[0].dagster_run
        started: dict[str, float] = {}
        out: dict[str, float] = {}
        for entry in instance.all_logs(run.run_id):
            event = entry.dagster_event
            if event is None or event.step_key is None:
                continue
            if event.event_type == DagsterEventType.STEP_START:
                started[event.step_key] = entry.timestamp
            elif event.event_type == DagsterEventType.STEP_SUCCESS and event.step_key in started:
                out[event.step_key] = entry.timestamp - started[event.step_key]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--claims", type=int, default=300, help="seeded sample of SciFact train claims")
    parser.add_argument("--home", default=None)
    parser.add_argument(
        "--cold",
        action="store_true",
        help="a fresh home under --home (or a temporary folder): the corpus is embedded in this run",
    )
    args = parser.parse_args()
    data = require_data("scifact")
    home = resolve_home(args.home)
    if args.cold:
        home = Path(tempfile.mkdtemp(prefix="verify_cold_", dir=home if args.home else None))
        print(f"cold run in {home} (no embedding cache)")
    unique = {c["claim"]: c for c in read_jsonl(data / "claims_train.jsonl")}  # a few claims repeat
    claims = random.Random(7).sample(sorted(unique.values(), key=lambda c: c["id"]), args.claims)
    claims_file = home / "bench" / f"verify_{args.claims}.jsonl"
    claims_file.parent.mkdir(parents=True, exist_ok=True)
    claims_file.write_text("".join(json.dumps({"id": c["id"], "claim": c["claim"]}) + "\n" for c in claims))
    out = home / "bench" / f"verify_{args.claims}_results.jsonl"
    started = time.perf_counter()
    result = CliRunner().invoke(
        app,
        [
            "verify",
            "--corpus",
            str(data / "corpus.jsonl"),
            "--claims",
            str(claims_file),
            "--out",
            str(out),
            "--home",
            str(home),
        ],
    )
    seconds = time.perf_counter() - started
    if result.exit_code != 0:
        raise SystemExit(f"lyra verify failed ({result.exit_code}):\n{result.output[-2000:]}")
    task = LyraStore.at(home).list_tasks()[-1]
    steps = step_seconds(home, task.id)
    lines = out.read_text().splitlines()
    print(
        f"lyra verify: {len(lines)} claims in {seconds:.0f} s ({seconds / len(lines):.2f} s per claim) "
        f"on {LyraStore.at(home).fetch_df('SELECT count(*) AS n FROM nli_edges WHERE task_id = ?', [task.id])['n'][0]} "
        f"NLI pairs; the goal: 150 s for 300 claims, cold"
    )
    for asset, secs in steps.items():
        print(f"  {asset:<22} {secs:6.1f} s")


if __name__ == "__main__":
    main()
