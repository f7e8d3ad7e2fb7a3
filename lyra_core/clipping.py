"""Texts cut to fit an answer or a page: at a word, with an ellipsis marking the cut; and the
missing numbers of a data frame (NaN) read as missing (None)."""

from __future__ import annotations

import math
from typing import Any


def clip(text: Any, limit: int) -> tuple[str, bool]:
    """``text`` cut at a word to at most ``limit`` characters (an ellipsis marks the cut)."""
    text = text if isinstance(text, str) else ""
    if len(text) <= limit:
        return text, False
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip() + "…", True


def nan_to_none(value: Any) -> Any:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value
