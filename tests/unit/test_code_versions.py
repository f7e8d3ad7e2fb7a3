"""An asset's code version digests its module and every Lyra module it imports, so it changes with
the logic it runs and with nothing else; the inputs digest of ``lyra_assets.reuse`` changes with the
asset's code, its input rows and the outside inputs it reads."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lyra_assets.code_versions import code_version, imported_modules
from lyra_assets.reuse import frame_digest, inputs_digest
from lyra_resources.store.run_inputs import RunInputs


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_version_follows_every_module_the_asset_imports_and_no_other(tmp_path):
    root = tree(
        tmp_path,
        {
            "lyra_core/__init__.py": "",
            "lyra_core/scoring.py": "def score(): return 1\n",
            "lyra_core/text.py": "def clean(s): return s\n",
            "lyra_core/unused.py": "X = 1\n",
            "lyra_assets/__init__.py": "",
            "lyra_assets/scores.py": "from lyra_core import scoring\nfrom lyra_core.text import clean  # why\n",
        },
    )
    assert imported_modules("lyra_assets.scores", root) == [
        "lyra_assets",
        "lyra_assets.scores",
        "lyra_core",
        "lyra_core.scoring",
        "lyra_core.text",
    ]
    before = code_version.__wrapped__("lyra_assets.scores", root)
    (root / "lyra_core/unused.py").write_text("X = 2\n")
    assert code_version.__wrapped__("lyra_assets.scores", root) == before
    (root / "lyra_core/text.py").write_text("def clean(s): return s.strip()\n")
    changed = code_version.__wrapped__("lyra_assets.scores", root)
    assert changed != before and len(changed) == 16


def test_modules_named_in_a_parenthesised_import_over_several_lines_count(tmp_path):
    root = tree(
        tmp_path,
        {
            "lyra_core/__init__.py": "",
            "lyra_core/scoring.py": "X = 1\n",
            "lyra_core/text.py": "Y = 1\n",
            "lyra_assets/__init__.py": "",
            "lyra_assets/scores.py": "from lyra_core import (\n    scoring,  # why\n    text as words,\n)\n",
        },
    )
    assert imported_modules("lyra_assets.scores", root) == [
        "lyra_assets",
        "lyra_assets.scores",
        "lyra_core",
        "lyra_core.scoring",
        "lyra_core.text",
    ]


def test_the_inputs_digest_changes_with_code_rows_and_what_the_asset_reads():
    parts = {
        "task": "t",
        "settings": "s",
        "code": "c",
        "corpus": "k",
        "models": "m",
        "domains": "d",
        "feedback": "f",
    }
    world = RunInputs(digest="x", reason="", parts=parts)
    rows = pd.DataFrame({"page_id": ["a", "b"], "sections": [["results"], None]})
    base = inputs_digest("v1", world, {"pages": rows}, reads_corpus=False)
    assert base == inputs_digest("v1", world, {"pages": rows.copy()}, reads_corpus=False)
    assert base != inputs_digest("v2", world, {"pages": rows}, reads_corpus=False)
    assert base != inputs_digest("v1", world, {"pages": rows.iloc[:1]}, reads_corpus=False)
    moved = RunInputs(digest="y", reason="", parts={**parts, "corpus": "k2", "code": "c2"})
    assert inputs_digest("v1", moved, {"pages": rows}, reads_corpus=False) == base  # reads neither
    assert inputs_digest("v1", moved, {"pages": rows}, reads_corpus=True) != inputs_digest(
        "v1", world, {"pages": rows}, reads_corpus=True
    )
    tuned = RunInputs(digest="z", reason="", parts={**parts, "settings": "s2"})
    assert inputs_digest("v1", tuned, {"pages": rows}, reads_corpus=False) != base
    assert inputs_digest("v1", RunInputs(digest=None, reason="live"), {}, reads_corpus=False) is None
    assert frame_digest(rows) != frame_digest(rows[["sections", "page_id"]])
