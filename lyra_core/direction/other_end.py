"""A claim's outcome or exposure named from its other end: lower mortality is higher survival, weight
loss is less obesity. A passage that names one of them only from the other end reports the opposite
direction for it; the judge asks the reader about the passage's own words and reverses what it reads
(docs/direction.md).
"""

from __future__ import annotations

import re

from lyra_core.direction.loss_of_function import named_as_comparator, named_as_lost
from lyra_core.direction.population import only_as_population

# One outcome named from its two ends: lower mortality is higher survival. A passage that names the
# claim's outcome only from the other end reports the opposite direction for it.
_ENDS = (
    ("survival", frozenset("survival survive survives survived surviving survivor survivors alive".split())),
    (
        "mortality",
        frozenset(
            "mortality death deaths died die dies dying fatal fatality fatalities lethal lethality".split()
        ),
    ),
)
_WORDS = re.compile(r"[a-z]+")


def _end_of(text: str) -> int | None:
    """Which end (0 survival, 1 mortality) ``text`` names the outcome from; None for neither or both."""
    words = set(_WORDS.findall(text.lower()))
    ends = [n for n, (_, terms) in enumerate(_ENDS) if words & terms]
    return ends[0] if len(ends) == 1 else None


# A condition named only by its undoing: "metformin accelerates the resolution of fibrosis" is less
# fibrosis. The words before the condition's own name, within its noun phrase.
_UNDOINGS = frozenset(
    "resolution regression reversal clearance remission disappearance healing eradication".split()
)
_UNDOING = re.compile(
    rf"\b(?P<undoing>{'|'.join(sorted(_UNDOINGS))})\s+of\s+(?:the\s+|an?\s+)?(?:[\w-]+\s+){{0,3}}$",
    re.IGNORECASE,
)
_MODEL_OF = re.compile(r"\bmodels?\s+of\s+(?:[\w-]+\s+){0,2}$", re.IGNORECASE)  # what was studied
_HEAD_CUT = re.compile(r"\s+(?:in|among|during|after|at|with|for|from)\s+.*$", re.IGNORECASE)


def _undone(outcome: str, passage: str) -> str | None:
    """The undoing every mention of the outcome's head noun in ``passage`` is named by ("resolution" for
    fibrosis in "… accelerates the resolution of well-established fibrosis"; "a model of lung fibrosis"
    names what was studied); None where one mention is the condition itself, or where the claim's
    outcome names an undoing itself ("diabetes remission")."""
    words = _WORDS.findall(_HEAD_CUT.sub("", outcome).lower())
    if not words or len(words[-1]) < 4 or _UNDOINGS & set(_WORDS.findall(outcome.lower())):
        return None
    stem = words[-1][: max(4, len(words[-1]) - 2)]
    undoings = []
    for mention in re.finditer(rf"\b{re.escape(stem)}\w*", passage, re.IGNORECASE):
        before = passage[max(0, mention.start() - 80) : mention.start()]
        if _MODEL_OF.search(before):
            continue
        undoing = _UNDOING.search(before)
        if undoing is None:
            return None
        undoings.append(undoing.group("undoing").lower())
    return undoings[0] if undoings else None


def as_named_in(outcome: str, passage: str) -> tuple[str, bool]:
    """``outcome`` as ``passage`` names it, and whether that is its opposite end: for a claim on
    "child survival" and a passage on deaths, ("child mortality", True); for a passage that names a
    condition only by its undoing, ("resolution of fibrosis", True); else (``outcome``, False)."""
    claim_end, passage_end = _end_of(outcome), _end_of(passage)
    if claim_end is None or passage_end is None or claim_end == passage_end:
        undoing = _undone(outcome, passage)
        return (f"{undoing} of {outcome}", True) if undoing else (outcome, False)
    terms = _ENDS[claim_end][1]
    words = [_ENDS[passage_end][0] if w.lower() in terms else w for w in outcome.split()]
    return " ".join(words), True


# One exposure named from its two ends: weight loss is less obesity, quitting is less smoking. A passage
# that names the claim's exposure only from its other end reports the opposite direction for it.
# Each pair: (one end, the other end), phrases matched whole; the longer phrases are looked for first,
# so "smoking cessation" is not also read as "smoking".
_EXPOSURE_ENDS = (
    (
        (
            "obesity",
            "obese",
            "overweight",
            "adiposity",
            "weight gain",
            "excess weight",
            "excess body weight",
            "high bmi",
            "higher bmi",
        ),
        ("weight loss", "weight reduction", "weight-loss", "losing weight", "lose weight", "lost weight"),
    ),
    (
        ("smoking", "cigarette smoking", "tobacco smoking", "smokers", "tobacco use"),
        (
            "smoking cessation",
            "quitting smoking",
            "quit smoking",
            "stopping smoking",
            "cessation of smoking",
            "quitters",
            "stopped smoking",
        ),
    ),
    (
        ("physical activity", "exercise", "physically active", "active lifestyle"),
        (
            "physical inactivity",
            "physically inactive",
            "sedentary",
            "sedentary behaviour",
            "sedentary behavior",
            "lack of exercise",
            "lack of physical activity",
        ),
    ),
    (
        (
            "sleep deprivation",
            "sleep loss",
            "sleep restriction",
            "short sleep",
            "insufficient sleep",
            "sleep-deprived",
            "sleep deprived",
            "lack of sleep",
        ),
        (
            "sleep extension",
            "longer sleep",
            "more sleep",
            "adequate sleep",
            "sufficient sleep",
            "recovery sleep",
        ),
    ),
    # a nutrient's status and its supplementation are not one exposure at two ends: the last pair, read
    # by :func:`status_for_intervention`, never turned round (low levels predict fractures; giving the
    # vitamin need not prevent them)
    (
        ("deficiency", "deficient", "insufficiency"),
        ("supplementation", "supplements", "supplement", "supplemented", "repletion"),
    ),
)
_STATUS_PAIR = len(_EXPOSURE_ENDS) - 1


def _phrase_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    ordered = sorted(phrases, key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(re.escape(p) for p in ordered) + r")\b", re.IGNORECASE)


_EXPOSURE_PATTERNS = [(_phrase_pattern(a), _phrase_pattern(b)) for a, b in _EXPOSURE_ENDS]


def _exposure_ends(text: str, pair: int) -> tuple[str | None, str | None]:
    """The first phrase of each end of exposure pair ``pair`` that ``text`` names (the longer
    phrases taken out before the shorter ones are looked for)."""
    first, second = _EXPOSURE_PATTERNS[pair]
    found: list[str | None] = [None, None]
    rest = text
    for end, pattern in sorted(
        ((0, first), (1, second)), key=lambda e: -max(map(len, _EXPOSURE_ENDS[pair][e[0]]))
    ):
        hit = pattern.search(rest)
        if hit:
            found[end] = hit.group(1).lower()
            rest = pattern.sub(" ", rest)
    return found[0], found[1]


def exposure_as_named_in(exposure: str, passage: str) -> tuple[str, bool]:
    """``exposure`` as ``passage`` names it, and whether that is its other end: for a claim on
    obesity and a passage on weight loss, ("weight loss", True); for "vitamin D deficiency" and a
    passage on supplementation, ("vitamin D supplementation", True); for MVP and a passage on
    "knockout of MVP", that phrase and True (``loss_of_function``); else (``exposure``, False). A
    passage that names both ends, or the other end only as who was studied ("in deficient women"),
    is read as it is."""
    for pair in range(_STATUS_PAIR):
        claim_one, claim_other = _exposure_ends(exposure, pair)
        if (claim_one is None) == (claim_other is None):
            continue
        said_one, said_other = _exposure_ends(passage, pair)
        named, said = (claim_one, said_other) if claim_one is not None else (claim_other, said_one)
        unsaid = said_one if claim_one is not None else said_other
        # "women with vitamin D deficiency" names who was studied, not what they were exposed to; "compared
        # with persistent heavy smokers" the comparator, not the exposure
        # one end is named (checked above): ``named`` is never None
        if (
            named is not None
            and said is not None
            and unsaid is None
            and not only_as_population(said, passage)
        ):
            if not _only_as_comparator(said, passage):
                return _swap(exposure, named, said), True
    lost = named_as_lost(exposure, passage)  # "knockout of MVP" for a claim on MVP
    return (lost, True) if lost else (exposure, False)


def _only_as_comparator(phrase: str, passage: str) -> bool:
    """Whether every mention of ``phrase`` in ``passage`` follows "than", "compared with" or "versus"
    within its clause: the arm the exposure was compared with."""
    mentions = list(re.finditer(rf"\b{re.escape(phrase)}\b", passage, re.IGNORECASE))
    return bool(mentions) and all(named_as_comparator(passage, m.start()) for m in mentions)


def status_for_intervention(exposure: str, passage: str) -> str | None:
    """The exposure the passage speaks of instead, where the claim names a nutrient's supplementation and
    the passage only its deficiency, or the other way round ("vitamin D deficiency" for a claim on
    vitamin D supplementation); None otherwise. Evidence on a status is indirect evidence on an
    intervention that changes it, and the reverse (docs/direction.md)."""
    claim_one, claim_other = _exposure_ends(exposure, _STATUS_PAIR)
    if (claim_one is None) == (claim_other is None):
        return None
    said_one, said_other = _exposure_ends(passage, _STATUS_PAIR)
    named, said = (claim_one, said_other) if claim_one is not None else (claim_other, said_one)
    unsaid = said_one if claim_one is not None else said_other
    if named is not None and said is not None and unsaid is None and not only_as_population(said, passage):
        return _swap(exposure, named, said)
    return None


def _swap(exposure: str, named: str, other: str) -> str:
    """The claim's exposure with its end's phrase replaced by the other end's ("vitamin D deficiency"
    → "vitamin D supplementation"); the other end's phrase alone where the end is the whole name."""
    swapped = re.sub(rf"\b{re.escape(named)}\b", other, exposure, count=1, flags=re.IGNORECASE)
    return " ".join(swapped.split())
