"""A task's report as Markdown: the answer first, the claims by topic with their strongest passages
for and against, the evidence graph (an image beside the file) and the numbered references.
Every text from the graph is escaped, so a record cannot add markup."""

from __future__ import annotations

import re

from lyra_core.answer import AnswerView, votes_text
from lyra_core.hypothesis import reading_note
from lyra_core.report.models import Report, ReportClaim, ReportSentence
from lyra_core.report.refs import UNTITLED
from lyra_core.untrusted_text import markdown_line

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<])")  # what starts markup inside a line


def md(text: str) -> str:
    """Text safe inside one Markdown line: a line break it holds becomes a space (it can start no
    heading, list or quote), control characters are visible escapes, and characters that would
    start markup are escaped."""
    return _MD_SPECIAL.sub(r"\\\1", markdown_line(text))


def score_text(claim: ReportClaim) -> str:
    """Verdict, confidence ± uncertainty and the votes that entered it, in one line; a claim its own
    paper states and no other paper's on-topic finding voted on says so instead of a verdict."""
    verdict = (
        "stated by one study, not checked elsewhere"
        if claim.unchecked
        else f"{claim.verdict.replace('_', ' ')} · confidence {claim.confidence:.2f} ± {claim.uncertainty:.2f}"
    )
    line = f"{verdict} · votes: " + votes_text(
        claim.supporting_votes, claim.refuting_votes, claim.below_threshold
    )
    return line + (" · rescored after human feedback" if claim.recomputed else "")


def stated_by(claim: ReportClaim) -> str:
    """ " · stated by [3] (RCT, n = 215)" after a claim's score; "" for a claim no paper states."""
    if claim.stated_in is None:
        return ""
    return f" · stated by [{claim.stated_in}]" + (
        f" ({md(claim.stated_facts)})" if claim.stated_facts else ""
    )


_SIDE_ADJECTIVES = {"Supports": "supporting", "Refutes": "refuting"}


def more_sources(word: str, more: int) -> str:
    """ "… and 2 more refuting sources": the sources on one side (``word``: Supports or Refutes)
    that the report does not quote."""
    return f"… and {more} more {_SIDE_ADJECTIVES[word]} source{'s' * (more != 1)}"


def sentence_note(s: ReportSentence) -> str:
    """The judge's confidence, and the model's label when a reviewer corrected it."""
    if s.model_relation:
        return f"set by a reviewer; the model said {s.model_relation.lower()}"
    return f"{s.confidence:.2f}"


def hypothesis_label(answer: AnswerView) -> str:
    """ "Hypothesis judged", with how it was read from the question where that is recorded."""
    note = reading_note(answer.question_reading)
    return f"Hypothesis judged ({note})" if note else "Hypothesis judged"


def answer_md(report: Report) -> list[str]:
    answer = report.answer
    lines = [f"**{md(line)}**" for line in report.answer_lines()] + [""]
    if answer is None:
        return (
            lines
            + [
                f"- {md(c.verdict.replace('_', ' '))} ({c.confidence:.2f}): {md(c.text)}"
                for c in report.checked or []
            ]
            + ([""] if report.checked else [])
        )
    if answer.hypothesis:
        lines.append(f"- {hypothesis_label(answer)}: {md(answer.hypothesis)}")
    for side, papers in (("For", answer.papers_for), ("Against", answer.papers_against)):
        if papers:
            lines.append(
                f"- {side}: "
                + "; ".join(f"{md(p.title or UNTITLED)} [{report.answer_refs[p.paper_id]}]" for p in papers)
            )
    lines += [f"- {md(c.verdict.replace('_', ' '))}: {md(c.text)}" for c in answer.claims]
    lines += [
        sentence_md(s.relation.capitalize(), s) for s in [*report.answer_supports, *report.answer_refutes]
    ]
    return [*lines, "", *caveats_md(report)]


def caveats_md(report: Report) -> list[str]:
    """This answer's own weaknesses, then the best-ranked papers that cast no vote and why."""
    lines = []
    if report.caveats:
        lines += ["**How far to trust this answer**", "", *[f"- {md(c)}" for c in report.caveats], ""]
    if report.uncounted:
        lines += ["**Best-ranked papers that cast no vote**", ""]
        lines += [
            f"- {md(p.title)}" + (f" [{p.ref}]" if p.ref else "") + f": {md(p.reason)}"
            for p in report.uncounted
        ]
        lines.append("")
    return lines


def sentence_md(word: str, s: ReportSentence) -> str:
    """One passage as a Markdown list item: its relation, text and reference, then what a scientist
    weighs (design, size, figures) and its paper's identifier as a link, then the judge's reason."""
    paper = f"[{md(s.paper)}](<{s.paper_link}>)" if s.paper_link else md(s.paper)
    weighed = " · ".join(p for p in (md(s.facts), paper) if p)
    return (
        f"- {word} ({sentence_note(s)}): “{md(s.text)}” [{s.ref}]"
        + (f" — {weighed}" if weighed else "")
        + (f"  \n  _why: {md(s.reason)}_" if s.reason else "")
    )


def markdown(report: Report, svg_name: str | None = None) -> str:
    lines = [f"# {md(report.query)}", "", *answer_md(report)]
    if report.note:
        lines += [f"> {md(report.note)}", ""]
    lines += [f"*{intro(report)}*", ""]
    if report.trust:
        lines += [f"*{md(report.trust)}*", ""]
    for topic in report.topics:
        flag = " (contradicting evidence)" if topic.contradicted else ""
        lines += [f"## Topic: {md(topic.label)}{flag}", ""]
        for c in topic.claims:
            mine = " (your claim)" if c.origin == "user" else ""
            lines += [
                f"### C{c.number}. {md(c.text)}{mine}",
                "",
                f"**{score_text(c)}**" + stated_by(c),
                "",
            ]
            for word, side, more in (
                ("Supports", c.supports, c.more_supporting_sources),
                ("Refutes", c.refutes, c.more_refuting_sources),
            ):
                lines += [sentence_md(word, s) for s in side]
                if more:
                    lines.append(f"- {more_sources(word, more)}")
            if not (c.supports or c.refutes):
                lines.append("No source supports or refutes it.")
            lines.append("")
    if not report.topics and report.answer is None:  # a question's answer stands for its claims
        lines += ["No scored claims yet.", ""]
    lines += ["## Evidence graph", ""]
    if svg_name:
        lines += [f"![Evidence graph: claims and their sources]({svg_name})", ""]
    lines += ["## References", ""]
    for ref in report.references:  # only http(s) links; any other URL is escaped text
        link = f" <{ref.link}>" if ref.link else f" {md(' '.join(ref.url.split()))}" if ref.url else ""
        lines.append(f"{ref.number}. {md(ref.text())}{link}")
    return "\n".join(lines) + "\n"


def intro(report: Report) -> str:
    """What the reader is looking at, and what human feedback changed."""
    # the run writes its report as its last step, while the task still reads "running": a status that
    # would be stale once the run ends is left out
    task = f"Task {report.task_id}" + (
        "." if report.status in ("running", "completed") else f" ({report.status})."
    )
    line = task
    if report.claims_in_force:  # "0 of 0 claims in force, the most relevant …" says nothing
        line = (
            f"{len(report.claims)} of {report.claims_in_force} claims in force, the most relevant to the question, "
            "grouped by topic, each with the strongest passages for and against it (the number beside a passage "
            "is the judge's calibrated probability of that relation; after it stand the study's design and size, "
            f"the figures the passage states and the paper's identifier). {task}"
        )
    if report.feedback:
        line += " Human feedback applied: " + "; ".join(report.feedback) + "."
    return line
