"""Table cells that hold lists (``VARCHAR[]`` columns such as ``sources``, ``dois``, ``claim_ids``).

Read back through pandas (DuckDB's ``.df()``, Parquet), such a cell is a numpy array, and a SQL
NULL is ``pd.NA`` or NaN; through ``fetchall`` it is a Python list or None. Neither an array
nor ``pd.NA`` may be truth-tested (``cell or []`` raises for an array of two or more items and
for NA), so every reader turns the cell into a list here instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def cell_list(value: Any) -> list[Any]:
    """The items of a list cell as a Python list; ``[]`` for NULL (None, NA, NaN).

    A lone string is one item, never its characters. Any other scalar is a bug upstream and
    raises ``TypeError`` rather than vanishing quietly.
    """
    if isinstance(value, str | bytes):
        return [value]
    if isinstance(value, Iterable):
        return list(value)
    if value is None:
        return []
    import pandas as pd  # a scalar that is not None came through pandas (NA, NaN), which is loaded then

    if pd.isna(value):
        return []
    raise TypeError(f"expected a list cell, got {type(value).__name__}: {value!r}")
