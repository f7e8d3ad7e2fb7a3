"""Keeping answers small: lists are paged with ``limit`` and an opaque ``cursor`` bound to the
query that handed it out, pages are cut to a byte budget, and long texts are clipped."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from lyra_resources.store.reviewed_graph.records import ExploreError

ANSWER_BUDGET = 7_000  # bytes of JSON for the listed items; the envelope stays well under 1 KB
MAX_LIMIT = 50
MAX_OFFSET = 10_000_000  # far past any task's rows; a larger offset is a forged cursor


def check_limit(limit: int, maximum: int = MAX_LIMIT) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= maximum:
        raise ExploreError(f"limit must be an integer from 1 to {maximum} (got {limit!r})")
    return limit


def query_key(kind: str, *parts: Any) -> str:
    return hashlib.sha1(json.dumps([kind, *parts], default=str).encode()).hexdigest()[:10]


def encode_cursor(key: str, offsets: dict[str, int]) -> str:
    raw = json.dumps({"k": key, "o": offsets}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _no_constant(name: str) -> None:
    raise ValueError(name)


def decode_cursor(cursor: str | None, key: str, names: Sequence[str] = ("i",)) -> dict[str, int]:
    """Offsets from a cursor this query handed out; a cursor of another query is refused."""
    if not cursor:
        return {n: 0 for n in names}
    try:
        if not isinstance(cursor, str) or len(cursor) > 200:
            raise ValueError
        data = json.loads(
            base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)), parse_constant=_no_constant
        )
        offsets = {n: data["o"][n] for n in names}
        # exactly the whole numbers this query hands out: a forged 1e30, Infinity or -1 is no offset
        if data["k"] != key or not all(type(v) is int and 0 <= v <= MAX_OFFSET for v in offsets.values()):
            raise ValueError
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        raise ExploreError(
            "cursor does not belong to this query: pass the next_cursor of the previous "
            "answer unchanged, with the same arguments"
        ) from None
    return offsets


T = TypeVar("T", bound=BaseModel)


def fit_page(items: Sequence[T], limit: int, budget: int = ANSWER_BUDGET) -> list[T]:
    """The first ``limit`` items, fewer if their JSON would pass ``budget`` bytes (at least one)."""
    out: list[T] = []
    used = 0
    for item in items[:limit]:
        size = len(item.model_dump_json()) + 1
        if out and used + size > budget:
            break
        out.append(item)
        used += size
    return out


def page_of(
    items: list[T], offset: int, limit: int, key: str, budget: int = ANSWER_BUDGET
) -> tuple[list[T], str | None]:
    page = fit_page(items[offset:], limit, budget)
    end = offset + len(page)
    return page, (encode_cursor(key, {"i": end}) if end < len(items) else None)
