"""What a task's report shows, as pydantic models: the answer, the claims by topic with their
strongest passages, the evidence graph's nodes and links, and the references."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel

from lyra_core.answer import AnswerView
from lyra_core.report.caveats import UncountedPaper
from lyra_core.report.refs import Reference
from lyra_core.report.svg import GraphLink, GraphNode, evidence_svg, svg_text


class ReportSentence(BaseModel):
    """A passage of a source that supports or refutes a claim, cited as ``[ref]``."""

    relation: str
    confidence: float
    text: str
    ref: int
    model_relation: str | None = None  # the model's label, when a reviewer corrected it
    reason: str | None = None  # the judge's reason in one line
    facts: str = ""  # what a scientist weighs: "RCT, n = 861, HR 0.63 (0.35–1.13)" (lyra_core.evidence_facts)
    paper: str = ""  # the paper's DOI, PMID, URL or id, as the passage names it
    paper_link: str | None = None  # where it opens: an http(s) link, or None (shown as text)


class ReportClaim(BaseModel):
    number: int  # C1, C2, … in the order the report shows them
    claim_id: str
    text: str
    origin: str
    verdict: str
    confidence: float
    uncertainty: float
    supporting: int  # passages (edges) on each side
    refuting: int
    neutral: int
    supporting_votes: int = 0  # the votes that entered the score
    refuting_votes: int = 0
    below_threshold: int = 0  # sources whose strongest passage is under the vote threshold: no vote
    recomputed: bool  # human feedback changed the model's score
    stated_in: int | None = None  # the reference the claim was extracted from
    stated_facts: str = ""  # that paper's design and size ("RCT, n = 215"), where its edges state them
    supports: list[ReportSentence] = []
    refutes: list[ReportSentence] = []
    more_supporting_sources: int = 0  # sources on that side not quoted
    more_refuting_sources: int = 0

    @property
    def unchecked(self) -> bool:
        """A claim a paper states that no other paper's on-topic finding voted on: its own paper never
        judges it (docs/scoring.md#certainty), so "unverified" would hide that one study states it."""
        return (
            self.stated_in is not None
            and self.origin not in ("user", "hypothesis")
            and self.supporting_votes == 0
            and self.refuting_votes == 0
        )


class ReportTopic(BaseModel):
    label: str
    contradicted: bool
    claims: list[ReportClaim]


class CheckedClaim(BaseModel):
    """One claim a verify task checked, with its effective verdict."""

    text: str
    verdict: str
    confidence: float


class Report(BaseModel):
    task_id: str
    query: str
    status: str
    note: str | None = None
    answer: AnswerView | None = None
    # a verify task has no question to answer: the claims it was given to check (None: not a verify task)
    checked: list[CheckedClaim] | None = None
    answer_refs: dict[str, int] = {}  # source id of each paper for or against → reference number
    answer_supports: list[ReportSentence] = []  # the hypothesis's strongest passage in each paper for it
    answer_refutes: list[ReportSentence] = []
    topics: list[ReportTopic] = []
    claims_in_force: int = 0
    feedback: list[str] = []  # what human feedback changed, one phrase each
    trust: str | None = None  # how far to trust the judge, with its measured figures
    caveats: list[str] = []  # this answer's own weaknesses, one sentence each (lyra_core.report.caveats)
    uncounted: list[UncountedPaper] = []  # best-ranked papers that cast no vote on the hypothesis, and why
    claim_nodes: list[GraphNode] = []
    paper_nodes: list[GraphNode] = []
    links: list[GraphLink] = []
    references: list[Reference] = []

    @property
    def claims(self) -> list[ReportClaim]:
        return [c for t in self.topics for c in t.claims]

    def svg(self) -> str:
        return svg_text(evidence_svg(self.claim_nodes, self.paper_nodes, self.links))

    def answer_lines(self) -> list[str]:
        """The answer in plain lines: the answer's own line, a verify task's count of checked claims
        and their verdicts, or that there is no answer yet. Markdown and HTML both start from it."""
        if self.answer is not None:
            return [self.answer.line, *([self.answer.not_addressed] if self.answer.not_addressed else [])]
        if self.checked is None:
            return ["No answer yet: the task has not been answered (run it)."]
        if not self.checked:
            return [
                "A verify task: its claims are checked against the literature, not a question answered; "
                "none has a verdict yet (run it)."
            ]
        counts = Counter(c.verdict.replace("_", " ") for c in self.checked)
        return [
            f"A verify task: {len(self.checked)} claim{'s' * (len(self.checked) != 1)} checked against the "
            "literature ("
            + ", ".join(f"{n} {v}" for v, n in sorted(counts.items(), key=lambda i: (-i[1], i[0])))
            + ")."
        ]
