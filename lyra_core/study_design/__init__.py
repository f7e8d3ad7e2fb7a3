"""What a scientist weighs beside a passage: the study's design, its size, its stated effect.

``read_design`` reads the design from a paper's title and abstract, ``sample_size`` the number of
people or animals a text says were studied, and ``describe_passage`` puts both beside the effect
figures a passage states (lyra_core.direction.figures) in one ``PassageFacts``.
"""

from lyra_core.study_design.design import DESIGNS, GRADED_AS, LABEL, RANK, Design, StudyDesign, read_design
from lyra_core.study_design.facts import PassageFacts, describe_passage
from lyra_core.study_design.sample_size import sample_size

__all__ = [
    "DESIGNS",
    "GRADED_AS",
    "LABEL",
    "RANK",
    "Design",
    "PassageFacts",
    "StudyDesign",
    "describe_passage",
    "read_design",
    "sample_size",
]
