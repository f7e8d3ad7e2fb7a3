"""Every benchmark under ``bench/`` imports against today's packages and its command line parses,
without loading a model: a benchmark broken by a change elsewhere fails here, not on its next run."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import bench
from fixtures.paths import REPO as ROOT

MODULES = sorted(f"bench.{m.name}" for m in pkgutil.iter_modules(bench.__path__))
# The ones run as ``python -m bench.<name>``; the others are helpers they share.
COMMANDS = [
    m
    for m in MODULES
    if 'if __name__ == "__main__":' in (ROOT / "bench" / f"{m.removeprefix('bench.')}.py").read_text()
]


@pytest.mark.parametrize("name", MODULES)
def test_benchmark_imports(name):
    importlib.import_module(name)


@pytest.mark.parametrize("name", COMMANDS)
def test_benchmark_help_parses(name, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [name, "--help"])
    with pytest.raises(SystemExit) as exit_:
        importlib.import_module(name).main()
    assert exit_.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_importing_the_benchmarks_loads_no_model_library():
    # In a fresh interpreter: other tests of the session may have loaded torch already.
    code = (
        "import importlib, sys\n"
        f"for name in {MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in ('torch', 'transformers', 'sentence_transformers', 'peft') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
