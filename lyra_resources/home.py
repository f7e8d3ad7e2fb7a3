"""Where Lyra keeps its files: the repository's configuration folder, and the home directory.

The home directory holds everything a user's runs produce: the DuckDB database, the Parquet
exports, the Dagster instance (runs, partitions, event logs) and caches. It resolves as
``--home`` > ``$LYRA_HOME`` > ``./.lyra``, so the CLI and ``dagster dev`` started in the same
folder share one instance.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

from pydantic import BaseModel

from lyra_resources.environment import HOME_ENV, read_environment

DEFAULT_HOME = ".lyra"
REPO_ROOT = Path(__file__).resolve().parents[1]
_config_dir = read_environment().config_dir
CONFIG_DIR = Path(_config_dir if _config_dir is not None else REPO_ROOT / "config")


class HomeError(ValueError):
    """A home that cannot be one: an empty name, which would put the store in the current folder, or a
    path that cannot be resolved (a loop of symbolic links)."""


def resolve_home(home: str | os.PathLike[str] | None = None, *, create: bool = True) -> Path:
    """The Lyra home directory (absolute), created unless ``create`` is False. An empty name, given
    or in ``$LYRA_HOME``, is a :class:`HomeError`: it would put a store in the current folder."""
    env_home = read_environment().home
    if home is None and env_home is not None and not env_home.strip():
        raise HomeError(f"${HOME_ENV} is set but empty; name a folder or unset it (default ./{DEFAULT_HOME})")
    if isinstance(home, str) and not home.strip():
        raise HomeError(f"the home is an empty name; name a folder (default ./{DEFAULT_HOME})")
    raw = home or env_home or DEFAULT_HOME
    try:
        path = Path(raw).expanduser().resolve()
    except (OSError, RuntimeError) as exc:  # a loop of symbolic links (RuntimeError before Python 3.13)
        reason = (
            exc.strerror if isinstance(exc, OSError) and exc.strerror else f"a loop of symbolic links ({exc})"
        )
        raise HomeError(f"the home {raw} cannot be used: {reason}; name a folder") from None
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


class HomeLayout(BaseModel):
    """The files under one Lyra home."""

    root: Path

    @property
    def database(self) -> Path:
        return self.root / "lyra.duckdb"

    @property
    def parquet(self) -> Path:
        return self.root / "parquet"

    @property
    def dagster_home(self) -> Path:
        return self.root / "dagster"

    @property
    def cache(self) -> Path:
        return self.root / "cache"

    @property
    def corpora(self) -> Path:
        """Corpus files an MCP agent may name (``mcp.corpus_roots`` by default)."""
        return self.root / "corpora"

    @property
    def models(self) -> Path:
        """Models trained for this home (the shipped ones stay in the installed package)."""
        return self.root / "models"

    def data(self) -> dict[str, Path]:
        """The home's own data, which no output a command is asked to write may replace: the store
        (the DuckDB file and the files DuckDB keeps beside it), the Parquet exports, the Dagster
        instance, the caches and the models trained for the home."""
        return {
            "the store": self.database,
            "the Parquet exports": self.parquet,
            "the Dagster instance": self.dagster_home,
            "the caches": self.cache,
            "the home's models": self.models,
        }

    def data_holding(self, path: str | os.PathLike[str]) -> str | None:
        """Which part of the home's data ``path`` is or lies inside (``data``), else None. Both sides
        are resolved first, so a relative path, ``..`` or a symlink into the home is caught."""
        target = Path(path).expanduser().resolve()
        for what, part in self.data().items():
            part = part.resolve()
            if target == part or part in target.parents:
                return what
            if (
                part == self.database.resolve()
                and target.parent == part.parent
                and target.name.startswith(part.name)
            ):
                return what  # lyra.duckdb.wal, lyra.duckdb.tmp: DuckDB's files beside the database
        return None

    def report(self, task_id: str) -> Path:
        """The task's Markdown report (the ``.html`` and ``.svg`` lie beside it)."""
        return self.root / "reports" / f"{task_id}.md"

    def verify_results(self, task_id: str) -> Path:
        return self.root / "verify" / f"{task_id}.jsonl"

    def run_log(self, task_id: str) -> Path:
        """The output of the runs the MCP server started for the task."""
        return self.root / "logs" / f"{task_id}.log"

    def run_lock(self, task_id: str) -> Path:
        """Locked by the process running the task (``lyra_resources.store.task_lock``)."""
        return self.root / "running" / f"{task_id}.lock"

    @property
    def foreground_lock(self) -> Path:
        """Held (shared) by every task run in progress; the background embedder waits while it is
        (``lyra_resources.corpus.foreground``)."""
        return self.root / "running" / "foreground.lock"

    def task_outputs(self, task_id: str) -> list[Path]:
        """The files a task's runs leave outside the store that exist now: its report, its verify
        results and its run log."""
        reports = sorted(self.report(task_id).parent.glob(f"{glob.escape(task_id)}.*"))
        others = [self.verify_results(task_id), self.run_log(task_id)]
        return [*reports, *(path for path in others if path.exists())]
