"""How fast the `lyra` commands that load no model start and answer: `lyra --help`, `lyra task
list`, `lyra task status TASK` and a feedback call (`lyra feedback apply TASK add_note …`), each
run N times as a fresh process (as a user or a script runs them) against a home with one small
completed task (``bench.fuzz_cli.build_home``: rows written as the assets write them, no model
run). Prints the median, fastest and slowest wall seconds of each and its median CPU seconds
beside its target (under 1 s; a feedback call under 0.5 s), and the bare interpreter's start for scale.

    .venv/bin/python -m bench.cli_start [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.fuzz_cli import TASK, build_home

REPO = Path(__file__).resolve().parents[1]


def commands(home: Path) -> list[tuple[str, list[str], float | None]]:
    """(label, arguments after `python`, target seconds) of each command timed."""
    lyra = ["-m", "lyra_tools.cli"]
    note = json.dumps({"target_id": TASK, "note": "check the 2023 follow-up"})
    return [
        ("python -c pass (the interpreter alone)", ["-c", "pass"], None),
        ("lyra --help", [*lyra, "--help"], 1.0),
        ("lyra task list", [*lyra, "task", "list", "--home", str(home)], 1.0),
        ("lyra task status TASK", [*lyra, "task", "status", TASK, "--home", str(home)], 1.0),
        (
            "lyra feedback apply TASK add_note",
            [*lyra, "feedback", "apply", TASK, "add_note", note, "--home", str(home)],
            0.5,
        ),
    ]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_runs(args: list[str], runs: int) -> tuple[list[float], list[float]]:
    """Wall seconds and CPU seconds (user + system) of each run: on a machine whose cores other
    work shares, the CPU seconds still compare."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    wall, cpu = [], []
    for _ in range(runs):
        cpu_before, started = _children_cpu(), time.perf_counter()
        done = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=REPO)
        wall.append(time.perf_counter() - started)
        cpu.append(_children_cpu() - cpu_before)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per command")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lyra-cli-start-") as scratch:
        home = build_home(Path(scratch))
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.runs} runs each")
        print(
            f"{'command':40s} {'median s':>9s} {'min s':>7s} {'max s':>7s} {'cpu s':>7s} {'target':>7s}  met"
        )
        for label, argv, target in commands(home):
            wall, cpu = time_runs(argv, args.runs)
            verdict = "" if target is None else ("yes" if statistics.median(wall) < target else "NO")
            shown = "" if target is None else f"< {target:g}"
            print(
                f"{label:40s} {statistics.median(wall):9.2f} {min(wall):7.2f} {max(wall):7.2f} "
                f"{statistics.median(cpu):7.2f} {shown:>7s}  {verdict}"
            )


if __name__ == "__main__":
    main()
