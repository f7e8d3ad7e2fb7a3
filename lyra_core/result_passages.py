"""The result passages of the best-ranked papers: what the question's hypothesis is always judged on.

The search ranks a trial first and the judge then reads only the passages most like the
hypothesis's words, which are its background and conclusion ("These data do not lend support to the
use of thigh-length GCS …"), not the sentence that holds its finding ("The primary outcome occurred
in 126 (10.0%) patients allocated to thigh-length GCS and in 133 (10.5%) allocated to avoid GCS …").
So each of the ``TOP_PAPERS`` best-ranked papers is judged on every passage that states a result:
one in a RESULTS, FINDINGS or CONCLUSIONS section of a structured abstract, or, in an abstract
without labels, one that states an effect figure or a p-value (docs/pipeline.md, nli_edges).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from lyra_core.sections import label_role

TOP_PAPERS = 5  # the best-ranked papers a reader expects to have been weighed

# a percentage, a p-value, an interval or a named ratio: the marks of a stated result
_RESULT_FIGURE = re.compile(
    r"\d\s*%|\bp\s*[<=>≤≥]\s*0?\.\d|\b(?:95\s*%\s*)?(?:CI|confidence intervals?)\b|"
    r"\b(?:odds|hazard|risk|rate) ratios?\b|\b(?:OR|HR|RR|aOR|aHR|IRR)\s*[=:,(]?\s*\d",
    re.IGNORECASE,
)


def states_result(text: str, sections: Sequence[str]) -> bool:
    """Whether a passage states a result: one of its sentences stands in a results or conclusions
    section; or none is labelled as a finding or as background/methods and the passage states a
    figure. A methods sentence's figures ("n=1256") are no result."""
    roles = [label_role(s) for s in sections]
    if "finding" in roles:
        return True
    if roles and all(r == "other" for r in roles):
        return False
    return bool(_RESULT_FIGURE.search(text))


def top_paper_results(
    pages: Sequence[str],
    texts: Sequence[str],
    sections: Sequence[Sequence[str]],
    page_rank: Mapping[str, int],
    top: int = TOP_PAPERS,
) -> list[int]:
    """The indices of the passages (``pages[i]``, ``texts[i]``, ``sections[i]``) that state a result
    and belong to one of the ``top`` best-ranked pages (``page_rank``: page → its paper's search
    rank, 1 best; a page without one is never among the best), in their given order."""
    best = set(sorted(page_rank, key=lambda p: (page_rank[p], p))[:top])
    return [
        i
        for i, (page, text, labels) in enumerate(zip(pages, texts, sections, strict=True))
        if page in best and states_result(text, labels)
    ]
