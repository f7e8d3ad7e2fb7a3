"""Every yes/no question of tests/data/yes_no_questions.txt (352 questions of many shapes, one a
line) is read as yes/no, and each hypothesis passes checks that can be stated mechanically: one
capitalised sentence ending with a period, no auxiliary left at its front, every word of the
question kept (a verb in its inflected form), and — where the reading is by rule — the auxiliary's
agreement: "Does X reduce…" gives "reduces", "Did X fall…" gives "fell", "Is/Can/Has X…" keeps
its auxiliary after the subject."""

from __future__ import annotations

import re

import pytest

from fixtures.paths import TEST_DATA
from lyra_core.hypothesis import FALLBACK, HYPOTHESIS, RULE, to_hypothesis
from lyra_core.hypothesis.words import AUXILIARIES, bare, past, third_person

SUITE = TEST_DATA / "yes_no_questions.txt"
QUESTIONS = [
    line.strip() for line in SUITE.read_text().splitlines() if line.strip() and not line.startswith("#")
]


def _words(text: str) -> list[str]:
    return [bare(w) for w in text.split() if bare(w)]


def _asked(question: str) -> tuple[str, list[str]]:
    """The question's (positive) auxiliary and the words after it (after any heading)."""
    words = _words(re.sub(r",?\s+or\s+not\s*\??$", "?", question))
    at = next(i for i, w in enumerate(words) if w in AUXILIARIES)
    return AUXILIARIES[words[at]], words[at + 1 :]


def grammar_problems(question: str) -> list[str]:
    """What keeps the question's hypothesis from passing the mechanical checks; [] when it passes."""
    parsed = to_hypothesis(question)
    if parsed.origin != HYPOTHESIS or not parsed.hypothesis or parsed.reading not in (RULE, FALLBACK):
        return ["not read as yes/no"]
    text, problems = parsed.hypothesis, []
    first = next((c for c in text if c.isalnum()), "")
    if not text.endswith(".") or "?" in text or not (first.isupper() or first.isdigit()):
        problems.append("not one capitalised sentence ending with a period")
    said = _words(text)
    if said[0] in AUXILIARIES:
        problems.append("an auxiliary left at its front")
    aux, asked = _asked(question)
    kept = set(said)
    dropped = [
        w
        for w in asked
        if w not in kept
        and third_person(w) not in kept
        and past(w) not in kept
        and w not in ("any", "not", "true", "that")
        and not (w in ("it", "they") and parsed.reading == RULE)
    ]
    if dropped:
        problems.append(f"words of the question lost: {dropped}")
    if parsed.reading == RULE and not re.match(r"is it true that ", question, re.IGNORECASE):
        if (
            aux == "does"
            and "does" not in kept
            and not any(third_person(w) in kept and third_person(w) != w for w in asked)
        ):
            problems.append("no verb put in the third person")
        elif aux == "did" and "did" not in kept and not any(past(w) in kept and past(w) != w for w in asked):
            problems.append("no verb put in the past")
        elif aux not in ("do", "does", "did") and aux not in kept:
            problems.append(f"the auxiliary {aux!r} is missing")
    return problems


def test_the_suite_has_hundreds_of_questions_of_many_shapes():
    shapes = [line for line in SUITE.read_text().splitlines() if line.startswith("# shape:")]
    assert len(QUESTIONS) >= 300 and len(shapes) >= 10 and len(set(QUESTIONS)) == len(QUESTIONS)


def test_every_question_is_read_as_yes_no_and_passes_the_grammar_checks():
    failing = {q: p for q in QUESTIONS if (p := grammar_problems(q))}
    assert not failing


def test_most_questions_are_read_by_rule():
    readings = [to_hypothesis(q).reading for q in QUESTIONS]
    assert readings.count(RULE) >= 0.95 * len(QUESTIONS), readings.count(FALLBACK)


@pytest.mark.parametrize(
    ("question", "problem"),
    [
        ("Does metformin reverse liver damage?", None),
        ("Is smoking harmful?", None),
    ],
)
def test_the_checks_accept_a_good_reading(question, problem):
    assert grammar_problems(question) == []
