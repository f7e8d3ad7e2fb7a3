"""Whether two arms' event counts differ beyond chance, when the text gives the counts but no p-value.

Trials often report each arm as events of its total ("infection occurred in 12 of 200 patients given
prophylaxis and in 31 of 198 given placebo") and leave the test to the reader. A reader computes it:
Fisher's exact test on the 2 × 2 table, two-sided (the tables no likelier than the one observed),
the test a scientist runs on such counts whatever their size.
"""

from __future__ import annotations

import math


def _log_choose(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def fisher_exact_p(events_a: int, total_a: int, events_b: int, total_b: int) -> float:
    """Two-sided p of Fisher's exact test for ``events_a`` of ``total_a`` against ``events_b`` of ``total_b``."""
    if not (0 <= events_a <= total_a and 0 <= events_b <= total_b) or total_a == 0 or total_b == 0:
        raise ValueError("counts must lie between 0 and a positive total")
    events, everyone = events_a + events_b, total_a + total_b
    base = _log_choose(everyone, events)

    def log_p(x: int) -> float:  # the table with x events in arm a, the margins held
        return _log_choose(total_a, x) + _log_choose(total_b, events - x) - base

    observed = log_p(events_a)
    tables = range(max(0, events - total_b), min(events, total_a) + 1)
    p = sum(math.exp(lp) for lp in map(log_p, tables) if lp <= observed + 1e-7)
    return min(1.0, p)
