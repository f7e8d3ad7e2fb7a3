"""The facts a scientist weighs beside one evidence passage, in one line: "RCT, n = 1,234, HR 0.63
(0.45–0.89)"."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from lyra_core.direction.figures import EffectFigure, effect_figures
from lyra_core.study_design.design import StudyDesign, read_design
from lyra_core.study_design.sample_size import sample_size


class PassageFacts(BaseModel):
    """A passage's paper's design and size, and the effect figures the passage itself states."""

    design: StudyDesign
    sample_size: int | None = Field(default=None, description="people or animals studied, where stated")
    figures: list[EffectFigure] = Field(default_factory=list)

    @property
    def design_cue(self) -> str | None:
        return self.design.cue

    def figures_text(self, limit: int = 2) -> str:
        """The first figures as a scientist writes them: 'HR 0.63 (0.45–0.89)', 'OR 1.4, p 0.03'."""
        return "; ".join(figure_text(f) for f in self.figures[:limit])

    def summary(self) -> str:
        """'RCT, n = 1,234, HR 0.63 (0.45–0.89)'; the parts not stated are left out."""
        parts = [self.design.label] if self.design.design != "other" else []
        if self.sample_size is not None:
            parts.append(f"n = {self.sample_size:,}")
        if self.figures:
            parts.append(self.figures_text())
        return ", ".join(parts)


_P_STATED = re.compile(r"\bp\s*(?:[=<>≤≥]|\d|\.\d)", re.IGNORECASE)


def _fmt(value: float) -> str:
    return f"{value:g}"


def figure_text(figure: EffectFigure) -> str:
    """A figure with its interval, else its p-value: 'HR 0.63 (0.45–0.89)', 'OR 1.4, p 0.03'."""
    if figure.kind in ("arms", "p_value"):
        return figure.text
    shown = f"{figure.label} {_fmt(figure.value)}"
    if figure.low is not None and figure.high is not None:
        return f"{shown} ({_fmt(figure.low)}–{_fmt(figure.high)})"
    if figure.p is not None:
        return f"{shown}, p {_fmt(figure.p)}"
    return shown


def is_effect_shown(figure: EffectFigure) -> bool:
    """Whether a figure is shown as an effect: a ratio, a difference or two arms stated with their
    interval or p-value. A lone p-value, or "1 vs 0.8" with neither, says too little to be shown."""
    if figure.kind == "p_value":
        return False
    return (
        (figure.low is not None and figure.high is not None)
        or figure.p is not None
        or bool(_P_STATED.search(figure.text))
    )


def describe_passage(paper_title: str, paper_abstract: str, passage: str, exposure: str = "") -> PassageFacts:
    """The design of the passage's paper (its title and abstract first, the passage as a last
    witness), the study's size (the randomised or enrolled total the abstract states; the passage's
    only where the abstract states none) and the effect figures the passage states with their
    interval or p-value, ordered exposure first where ``exposure`` names it."""
    design = read_design(paper_title, paper_abstract, passage)
    sizes = [n for n in (sample_size(paper_abstract), sample_size(passage)) if n is not None]
    return PassageFacts(
        design=design,
        sample_size=sizes[0] if sizes else None,
        figures=[f for f in effect_figures(passage, exposure) if is_effect_shown(f)],
    )
