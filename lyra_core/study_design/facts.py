"""The facts a scientist weighs beside one evidence passage, in one line: "RCT, n = 1,234, HR 0.63
(0.45–0.89)"."""

from __future__ import annotations

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
        return "; ".join(_figure_text(f) for f in self.figures[:limit])

    def summary(self) -> str:
        """'RCT, n = 1,234, HR 0.63 (0.45–0.89)'; the parts not stated are left out."""
        parts = [self.design.label] if self.design.design != "other" else []
        if self.sample_size is not None:
            parts.append(f"n = {self.sample_size:,}")
        if self.figures:
            parts.append(self.figures_text())
        return ", ".join(parts)


def _fmt(value: float) -> str:
    return f"{value:g}"


def _figure_text(figure: EffectFigure) -> str:
    if figure.kind in ("arms", "p_value"):
        return figure.text
    shown = f"{figure.label} {_fmt(figure.value)}"
    if figure.low is not None and figure.high is not None:
        return f"{shown} ({_fmt(figure.low)}–{_fmt(figure.high)})"
    if figure.p is not None:
        return f"{shown}, p {_fmt(figure.p)}"
    return shown


def describe_passage(paper_title: str, paper_abstract: str, passage: str, exposure: str = "") -> PassageFacts:
    """The design of the passage's paper (its title and abstract first, the passage as a last
    witness), the study's size (the larger of what the abstract and the passage state) and the
    effect figures the passage states, ordered exposure first where ``exposure`` names it."""
    design = read_design(paper_title, paper_abstract, passage)
    sizes = [n for n in (sample_size(paper_abstract), sample_size(passage)) if n is not None]
    return PassageFacts(design=design, sample_size=max(sizes) if sizes else None,
                        figures=effect_figures(passage, exposure))
