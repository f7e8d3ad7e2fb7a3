"""The figures of a passage read by code, written as a short note the label model reads beside the
passage (docs/selector.md): an encoder does not compare 1.2 with 1 or run Fisher's test on counts,
so the figure reader does, and the model learns how much to trust what it says.

"… was 1.6 (95% CI 1.2 to 2.1)." → "… [figures: odds ratio 1.6 (1.2–2.1): higher]"
"""

from __future__ import annotations

from lyra_core.direction.figures import EffectFigure, effect_figures

_WAY_WORDS = {
    "up": "higher",
    "down": "lower",
    "none": "no significant difference",
    None: "direction not shown significant",
}
MAX_FIGURES = 2


def figure_words(figure: EffectFigure) -> str:
    if figure.kind == "p_value":  # a significant p the words qualify: which way, the words say
        return f"{figure.describe()}: a significant difference"
    return f"{figure.describe()}: {_WAY_WORDS[figure.way]}"


def figures_note(passage: str) -> str:
    """The note for ``passage`` ("" where it states no figure the reader can read). Arms are
    oriented by their words alone (a control or placebo group is the comparator), as at training."""
    figures = effect_figures(passage)[:MAX_FIGURES]
    if not figures:
        return ""
    return "[figures: " + "; ".join(figure_words(f) for f in figures) + "]"


def with_figures_note(passage: str) -> str:
    note = figures_note(passage)
    return f"{passage} {note}" if note else passage
