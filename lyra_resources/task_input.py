"""The one check of a task's input, run before anything of the task exists.

``lyra run``, ``lyra task run`` and MCP ``create_task`` all call :func:`check_task_input` first:
the settings file with the environment variables that win over it and the models it names
(``lyra_resources.settings.checks``), the question, the options, every corpus path (readable
papers in it, within the corpus file limits) and, for a task with no corpus, whether a live API
can be reached. Any problem is a :class:`TaskInputError` whose message is one line saying what
is wrong and how to fix it, so no task row, Dagster partition or run is left behind by input that
could never work.

A caller that is not the machine's own user (an MCP agent) passes ``corpus_roots``: then every
corpus path must lie under one of them once symlinks are resolved, and the task keeps the
resolved path, so the run reads the file that was checked.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from lyra_core.tasks import TaskOptions
from lyra_core.validation import describe, question_hint, text_problem
from lyra_resources.corpus.local_corpus import CorpusError, LocalCorpus
from lyra_resources.home import HomeLayout
from lyra_resources.settings.checks import check_configuration
from lyra_resources.settings.loading import LyraSettings, load_settings
from lyra_resources.settings.pipeline import SettingsError
from lyra_resources.sources.academic.clients import unreachable_apis
from lyra_resources.sources.academic.gather import no_network_line
from lyra_resources.sources.academic.registry import source_names
from lyra_resources.sources.literature import OFFLINE_HINT, LiteratureSources
from lyra_resources.web.domain_policy import DomainPolicy, PolicyError

MAX_QUERY_CHARS = 2000
CLI_LABELS = {
    "corpus": "--corpus",
    "papers_per_source": "--papers",
    "claims": "--claim",
    "watch_every": "--watch",
}
MCP_LABELS = {name: f"options.{name}" for name in TaskOptions.model_fields}
STORED_LABELS = {name: f"the task's option {name}" for name in TaskOptions.model_fields}

# (settings, cache root) → API name → why it cannot be reached; tests swap in their own
Probe = Callable[[LyraSettings, Path], dict[str, str]]


class TaskInputError(ValueError):
    """The task's input cannot work; the message is one line for the user."""


class CheckedInput(BaseModel):
    """A task's input after the check: the normalised question and options, and notes worth
    showing (lines repaired while decoding, files left out of a corpus folder, a question too vague
    to judge)."""

    query: str
    options: TaskOptions
    notes: list[str]


def _probe(cfg: LyraSettings, cache: Path) -> dict[str, str]:
    return unreachable_apis(cfg.sources, cache / "http")


def mcp_corpus_roots(cfg: LyraSettings, home: str | os.PathLike[str]) -> list[Path]:
    """The folders (or files) an MCP agent's corpus paths must lie in: ``mcp.corpus_roots``, or by
    default the home's ``corpora/`` folder and the corpus paths the settings file names."""
    named = cfg.mcp.corpus_roots or [str(HomeLayout(root=Path(home)).corpora), *cfg.corpus]
    return [Path(os.path.realpath(os.path.expanduser(root))) for root in named]


def confine_corpus(path: str, roots: Sequence[Path], where: str) -> str:
    """``path`` with its symlinks resolved, if that lies under one of ``roots``; else TaskInputError.
    Checked before the path is opened, so a refusal says nothing about what exists outside."""
    try:
        real = Path(os.path.realpath(os.path.expanduser(path)))
    except (ValueError, OSError):  # a NUL byte, a loop of symlinks
        raise TaskInputError(f"{where}: {path[:80]!r} is not a usable file path") from None
    if not any(real == root or real.is_relative_to(root) for root in roots):
        raise TaskInputError(
            f"{where}: corpus path {path!r} is outside the corpus roots this server allows "
            f"({', '.join(map(str, roots))}); put the corpus there or add its folder to "
            "mcp.corpus_roots in the settings file"
        )
    return str(real)


def check_task_input(
    query: str,
    options: Mapping[str, Any] | TaskOptions | None,
    home: str | os.PathLike[str],
    *,
    labels: Mapping[str, str] = CLI_LABELS,
    probe: Probe = _probe,
    corpus_roots: Sequence[Path] | None = None,
    settings: Callable[[], LyraSettings] = load_settings,
) -> CheckedInput:
    """The task's input checked end to end; raises TaskInputError (one line) at the first problem.

    ``labels`` spells option names the way the caller's user typed them (``--papers`` on the
    command line, ``options.papers_per_source`` over MCP); with ``corpus_roots`` the task's own
    corpus paths must lie under them (``confine_corpus``). ``settings`` returns the settings the run
    will have (default: the user's file, read now, as a run's own process will read it)."""
    try:
        cfg = settings()
        check_configuration(cfg)  # the environment and the models too, as the run will read them
    except SettingsError as exc:
        raise TaskInputError(str(exc)) from None
    try:
        DomainPolicy()
    except PolicyError as exc:
        raise TaskInputError(str(exc)) from None
    query = " ".join((query or "").split())
    if not query:
        raise TaskInputError("a task needs a non-empty research question")
    if problem := text_problem(query):
        raise TaskInputError(f"the research question {problem}")
    if len(query) > MAX_QUERY_CHARS:
        raise TaskInputError(
            f"the research question is {len(query):,} characters long; at most "
            f"{MAX_QUERY_CHARS:,} are allowed"
        )
    try:
        opts = (
            options if isinstance(options, TaskOptions) else TaskOptions.model_validate(dict(options or {}))
        )
    except ValidationError as exc:
        raise TaskInputError(describe(exc, labels, TaskOptions)) from None
    if corpus_roots is not None and opts.corpus:
        where = labels.get("corpus", "corpus")
        opts = opts.model_copy(
            update={"corpus": [confine_corpus(p, corpus_roots, where) for p in opts.corpus]}
        )
    layout = HomeLayout(root=Path(home))
    literature = LiteratureSources.configured(layout.cache, cfg)
    notes: list[str] = [hint] if (hint := question_hint(query)) and not opts.is_verify else []
    where = labels.get("corpus", "corpus") if opts.corpus else "the settings' corpus"
    for path in opts.corpus or cfg.corpus:
        notes += check_corpus(literature, path, where)
    try:
        plan = literature.plan(opts.corpus)
    except ValueError as exc:  # a bad $LYRA_SOURCES_LIVE
        raise TaskInputError(str(exc)) from None
    if not plan.corpus and not plan.live:
        raise TaskInputError(
            f"the task has no literature source: {plan.reason} and it names no corpus; "
            f"{OFFLINE_HINT}, or set sources.live to auto"
        )
    if not plan.corpus:
        unreachable = probe(cfg, layout.cache)
        if unreachable and len(unreachable) >= len(source_names()):  # every live source
            raise TaskInputError(f"{no_network_line(unreachable)}; {OFFLINE_HINT}")
    return CheckedInput(query=query, options=opts, notes=notes)


def check_corpus(literature: LiteratureSources, path: str, where: str) -> list[str]:
    """Notes about one corpus path; TaskInputError when it cannot give the task a paper."""
    try:  # opened on its own, not kept: a long-lived MCP server must not hold every corpus it checked
        corpus = LocalCorpus.open(path, cache_dir=literature.corpus_cache_dir, limits=literature.corpus_files)
    except CorpusError as exc:
        raise TaskInputError(f"{where}: {exc}") from None
    except OSError as exc:
        raise TaskInputError(f"{where}: corpus path cannot be read: {exc.strerror or exc}") from None
    if not corpus.records:
        first = corpus.issues[0] if corpus.issues else None
        why = f": {first.location}: {first.reason}" if first else ""
        more = f" (and {len(corpus.issues) - 1:,} more problem(s))" if len(corpus.issues) > 1 else ""
        raise TaskInputError(
            f"{where}: corpus {corpus.path} holds no readable papers{why}{more}; "
            "fix the file or name another corpus"
        )
    notes = [note] if (note := corpus.repair_note()) else []
    if corpus.skipped:
        first = corpus.skipped[0]
        notes.append(
            f"{len(corpus.skipped):,} file(s) of corpus {corpus.path} were not read, e.g. "
            f"{first.path}: {first.reason}"
        )
    if bad := corpus.issues[len(corpus.skipped) :]:  # the files' own problems, after the files left out
        notes.append(
            f"{len(bad):,} record(s) or block(s) of corpus {corpus.path} were left out, e.g. "
            f"{bad[0].location}: {bad[0].reason}"
        )
    return notes
