"""The promotion gate: whether a candidate model replaces the active one, from their figures on
held-out corrections, a regression set and (optionally) agreement with the active model's
confident judgements. Pure: the figures come in, a decision and its reason go out."""

from __future__ import annotations

from pydantic import BaseModel

from lyra_core.training_metrics import Metrics


class GateResult(BaseModel):
    heldout_before: Metrics
    heldout_after: Metrics
    regression_before: Metrics
    regression_after: Metrics
    activate: bool
    reason: str
    science_agreement: Metrics | None = None  # the candidate against the active model's confident judgements


def gate_decision(
    heldout_before: Metrics,
    heldout_after: Metrics,
    regression_before: Metrics,
    regression_after: Metrics,
    tolerance: float,
    science_agreement: Metrics | None = None,
    science_min: float = 0.9,
) -> GateResult:
    """Activate only if the candidate is better on the held-out corrections (accuracy; macro-F1
    breaks a tie), loses at most ``tolerance`` accuracy on the SNLI regression set and, where the
    home has judged scientific text, keeps at least ``science_min`` of the active model's confident
    judgements that nobody corrected (an adapter that forgets the science is rejected)."""
    better = (heldout_after.accuracy, heldout_after.macro_f1) > (
        heldout_before.accuracy,
        heldout_before.macro_f1,
    )
    lost = regression_before.accuracy - regression_after.accuracy
    forgets = science_agreement is not None and science_agreement.accuracy < science_min - 1e-9
    if science_agreement is not None and forgets and better and lost <= tolerance + 1e-9:
        return GateResult(
            heldout_before=heldout_before,
            heldout_after=heldout_after,
            regression_before=regression_before,
            regression_after=regression_after,
            activate=False,
            science_agreement=science_agreement,
            reason=f"keeps only {science_agreement.accuracy:.1%} of the active model's confident "
            f"judgements on {science_agreement.pairs} uncorrected scientific pairs "
            f"(at least {science_min:.0%} needed)",
        )
    if not better:
        reason = (
            f"not better on held-out corrections: accuracy {heldout_after.accuracy:.4f} vs "
            f"{heldout_before.accuracy:.4f} (macro-F1 {heldout_after.macro_f1:.4f} vs {heldout_before.macro_f1:.4f})"
        )
    elif lost > tolerance + 1e-9:
        reason = (
            f"loses {lost * 100:.1f} points on the SNLI regression set "
            f"({regression_after.accuracy:.4f} vs {regression_before.accuracy:.4f}; at most {tolerance * 100:.1f} "
            "allowed)"
        )
    else:
        reason = (
            f"better on held-out corrections (accuracy {heldout_after.accuracy:.4f} vs {heldout_before.accuracy:.4f}); "
            f"SNLI regression {regression_after.accuracy:.4f} vs {regression_before.accuracy:.4f}"
        )
    return GateResult(
        heldout_before=heldout_before,
        heldout_after=heldout_after,
        regression_before=regression_before,
        regression_after=regression_after,
        activate=better and lost <= tolerance + 1e-9,
        reason=reason,
        science_agreement=science_agreement,
    )
