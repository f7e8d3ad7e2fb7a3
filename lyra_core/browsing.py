"""When a task browses the web, and how far: ``browser_mode`` decides whether the browser is used
at all; ``new_identifiers`` picks the identifiers found on fetched pages that go on to identifier
completion, bounded by depth so the loop (fetch → identifiers → completion → fetch) always ends.
"""

from __future__ import annotations

from collections.abc import Iterable

from lyra_core.identifiers import Identifiers


def new_identifiers(
    found: Iterable[Identifiers],
    known: Identifiers,
    *,
    depth: int,
    max_depth: int,
    per_page: int | None = None,
    limit: int | None = None,
) -> Identifiers:
    """Identifiers found on pages fetched at ``depth`` that identifier completion has not seen.

    Completing them creates work at ``depth + 1``; nothing is returned once that would pass
    ``max_depth``, so the loop (fetch → identifiers → completion → fetch) always ends. ``per_page``
    caps what one page contributes (its own ids come first: a reference list cannot crowd them
    out); ``limit`` caps the whole batch. Order is deterministic: page order, then finding order.
    """
    if depth < 0 or max_depth < 0:
        raise ValueError(f"depth and max_depth must be >= 0, got {depth} and {max_depth}")
    if depth + 1 > max_depth:
        return Identifiers()
    batch = Identifiers()
    for page_ids in found:
        fresh = page_ids.without(known).without(batch)
        batch = batch.merged(fresh.first(per_page) if per_page is not None else fresh)
    return batch.first(limit) if limit is not None else batch


def browser_mode(setting: str, live: str, *, has_local_corpus: bool) -> tuple[bool, str]:
    """Whether a task uses the browser, and why (recorded in the asset's metadata).

    ``on``/``off`` decide; ``auto`` follows the live sources and stays off for a task with a local
    corpus, so the offline default pipeline never launches a browser.
    """
    if setting == "off":
        return False, "browser.search is off"
    if setting == "on":
        return True, "browser.search is on"
    if setting != "auto":
        raise ValueError(f"browser.search must be auto, on or off, not {setting!r}")
    if live == "off":
        return False, "browser.search is auto and live sources are off"
    if has_local_corpus:
        return False, "browser.search is auto and the task reads a local corpus"
    return True, f"browser.search is auto and live sources are {live}"
