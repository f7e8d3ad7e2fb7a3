"""The number of people or animals a text says were studied: the randomised or enrolled total.

Read: "n = 1,234", "N=12 173", "1234 patients", "a total of 512 women were randomized", "5,422
participants without a history of stroke", "Two hundred Chinese patients", "136 cases … and 272
controls" (408: cases and their controls together). Not read: percentages ("92% female"), years
("in 2008 patients were…"), doses and ages ("600 mg", "65-year-old women"), p-values and
intervals (all decimals), people screened but not enrolled ("1106 participants assessed"), and
how many have a disease worldwide ("an estimated 1 billion people").

Over a whole abstract the study's size is what it says of the whole study, in this order: cases
and their controls together; a count said to be randomised ("170 were randomized"); one said to
be enrolled, included, recruited or studied, or in the PARTICIPANTS section; a count in the
methods (DESIGN, METHODS …); the arms added up where only
arms are given ("12 of 200 … and 31 of 198": 398). A count said to be randomised is the one beside the verb
("Of 116 enrolled, 100 were randomly allocated": 100); arms allocated one by one are added up ("93 … each
were allocated to exercise, and 93 to a control activity": 186; "20 were randomized to each group" of two:
40); groups named side by side are summed ("1968 men and 1737 women": 3705); a count with its parts
stated beside it is the whole ("Thirty patients (… n=23; … n=7)"). A cluster trial's size is its
participants, never its clusters (what a Cochrane reviewer reports as the number randomised).
Only where none of these is stated does the
largest count stand for the study — never an arm, a subgroup or the outcome's cases in the results
("76 and 53 cases of CIN III+") where the abstract states its total.
"""

from __future__ import annotations

import re

from lyra_core.fragments import split_sentences
from lyra_core.study_design.zones import sections

_WORD_VALUES = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_NUMBER_WORD = r"(?:" + "|".join([*_WORD_VALUES, *_SCALES]) + r")"
# "Seven hundred and seventeen": it starts with a unit word, never with "million" (as in "1.68 million").
_WORDS = r"(?:" + "|".join(_WORD_VALUES) + rf")(?:(?:\s+|-|\s+and\s+){_NUMBER_WORD})*"
# "1,234", "13 343" (a space between thousands), "1234".
_DIGITS = r"\d{1,3}(?:,\d{3})+|\d{1,3}(?:[ \u2009]\d{3})+(?![\d.,])|\d+"
# People and animals a study enrols; a count of anything else (studies, samples, years) is not its size.
SUBJECTS = (
    r"patients?|participants?|subjects?|volunteers?|women|men|girls|boys|children|adults|adolescents|"
    r"infants|newborns|neonates|individuals|persons|people|respondents|survivors|mothers|fathers|parents|"
    r"pregnant\s+women|pregnancies|twins|veterans|smokers|users|students|residents|physicians|doctors|"
    r"nurses|workers|employees|athletes|soldiers|recipients|donors|members|inhabitants|pairs|families|"
    r"households|contacts|cases|controls|babies|youths?|mice|rats|animals|pigs|dogs|rabbits|monkeys|sheep|hamsters|"
    r"episodes|admissions|births|deliveries|eyes|teeth"
)
# Words that may stand between a count and its subjects ("5,422 participants", "30 Wistar albino male rats").
_BETWEEN = (
    r"(?:(?!(?:years?|months?|weeks?|days?|hours?|old|times|per|percent|million|billion|thousand|of|mg|kg|ml|g|and|or|to|with|from|"
    r"in|at|the|were|was|had|who)\b)[A-Za-z][\w'’/-]*,?\s+){0,3}?"
)
# "type 1 diabetic patients" names a disease, not a count.
_COUNT = re.compile(
    rf"(?<![\w.,·±/-])(?<!\btype\s)(?P<count>{_DIGITS}|{_WORDS})(?![\w%]|[.,·]\d|\s*%|\s*percent|-year|\s*[-–]\s*\d)\)?\s+(?:of\s+(?:the\s+)?)?"
    rf"(?P<between>{_BETWEEN})(?P<noun>{SUBJECTS})\b",
    re.IGNORECASE,
)
_N_EQUALS = re.compile(r"(?<![A-Za-z])[nN]\s*(?:=|:)\s*(?P<count>\d{1,3}(?:[, \u2009]\d{3})+|\d+)(?![.,·]\d)")
# Years are numbers too: "in 2008 patients were …", "between 1995 and 1998 participants …".
_YEAR_BEFORE = re.compile(
    r"(?:\b(?:in|since|from|between|until|during|by|of|after|before|through|and|to)\s+|[-–])$", re.IGNORECASE
)
# Counted but not enrolled: the screened, the eligible, a country's or the world's population.
_NOT_ENROLLED_AFTER = re.compile(
    r"^[^.;]{0,20}?\b(?:were\s+)?(?:screened(?!\s+for\s+(?!eligibility))|assessed|"
    r"approached|invited|contacted|eligible|excluded|declined|refused)\b",
    re.IGNORECASE,
)
# "cell lines (n = 12)", "studies (n = 13)": an n that counts things, not people.
_THINGS_BEFORE = re.compile(
    r"\b(?:cell\s+lines?|cells|samples|specimens?|studies|trials|articles|papers|tumou?rs?|"
    r"genes|SNPs|sequences|lesions|images|sites|hospitals|centres|centers|countries)\W{0,3}"
    r"(?:\w+\W{1,3}){0,2}$",
    re.IGNORECASE,
)
_POPULATION = re.compile(
    r"\b(?:worldwide|globally|each\s+year|every\s+year|annually|per\s+year|an\s+estimated|"
    r"in\s+the\s+world|in\s+the\s+United\s+States\s+(?:have|suffer)|affects?|affected)\b",
    re.IGNORECASE,
)
_CONTROL_SUM = re.compile(
    rf"(?P<a>{_DIGITS}|{_WORDS})\s+(?:{_BETWEEN})(?:cases|patients|participants)\b[^.;]{{0,160}}?\band\s+"
    rf"(?P<b>{_DIGITS}|{_WORDS})\s+(?:{_BETWEEN})(?:controls|control\s+(?:subjects|participants)|noncases|"
    rf"non-cases|referents)\b",
    re.IGNORECASE,
)


def _value(text: str) -> int | None:
    """'1,234' → 1234; 'Seven hundred seventeen' → 717; 'Seventy-one' → 71."""
    text = text.strip()
    if text[0].isdigit():
        return int(re.sub(r"[,\s\u2009]", "", text))
    total, current = 0, 0
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in _WORD_VALUES:
            current += _WORD_VALUES[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in _SCALES:
            total += max(current, 1) * _SCALES[word]
            current = 0
    return total + current or None


def _is_year(text: str, start: int, raw: str) -> bool:
    if not re.fullmatch(r"(?:19|20)\d\d", raw):
        return False
    return bool(_YEAR_BEFORE.search(text[max(0, start - 12) : start]))


def _counts(sentence: str) -> list[int]:
    if _POPULATION.search(sentence):
        return []
    counts = []
    for match in _COUNT.finditer(sentence):
        raw = match.group("count")
        if _is_year(sentence, match.start(), raw) or _NOT_ENROLLED_AFTER.search(sentence[match.end() :]):
            continue
        if raw.lower() == "one":
            continue  # "one patient": a case, not a study's size
        value = _value(raw)
        if value:
            counts.append(value)
    for match in _N_EQUALS.finditer(sentence):
        if not _THINGS_BEFORE.search(sentence[max(0, match.start() - 40) : match.start()]):
            counts.append(_value(match.group("count")) or 0)  # "n = 0" is stated too
    for match in _CONTROL_SUM.finditer(sentence):
        a, b = _value(match.group("a")), _value(match.group("b"))
        if a and b:
            counts.append(a + b)
    return counts


# "170 were randomized", "we randomly assigned 170": a count said to be randomised, with or without its noun.
_RANDOMISED = re.compile(
    r"\brandomi[sz](?:ed|ation)\b|\brandomly\s+(?:assigned|allocated)\b|\b(?:were|was)\s+"
    r"(?:\w+\s+)?(?:allocated|assigned)\s+(?:to|into)\b",
    re.IGNORECASE,
)
_ENROLLED = re.compile(
    r"\b(?:enrol(?:l)?(?:ed|ment)?|included|recruited|a\s+total\s+of|took\s+part|participated|"
    r"comprised|consisted\s+of|studied|study\s+(?:population|sample))\b",
    re.IGNORECASE,
)
_BARE_COUNT = re.compile(
    rf"(?<![\w.,·±/-])(?P<count>{_DIGITS}|{_WORDS})\s+(?:\w+\s+){{0,2}}?(?:were|was|had\s+been|have\s+been)\s+"
    rf"(?:\w+\s+)?(?:randomi[sz]ed|enrolled|included|recruited|allocated|assigned)\b",
    re.IGNORECASE,
)
# What may stand before a count with no noun: the sentence's start, a comma, "and", "while" ("Pretest 2 were …" is a
# name).
_BARE_BEFORE = re.compile(
    r"(?:^|[,;:(]|\b(?:and|while|whereas|but|only|then|finally|all|of\s+(?:whom|these|them)))\s*$",
    re.IGNORECASE,
)
# Arms compared, not one group counted twice ("cohort (n = 630) and followed-up 2 y later (n = 564)").
_ARMS_NAMED = re.compile(
    r"\b(?:randomi[sz]ed|randomly|assigned|allocated|compared|versus|vs\.?|arms?)\b", re.IGNORECASE
)
# "12 of 200 … and 31 of 198", "12/200 vs 31/198": events among each arm, whose denominators add up to the study.
_ARM = re.compile(
    r"(?<![\w.,/-])(?P<events>\d{1,3}(?:,\d{3})*|\d+)\s*(?:/|\s(?:out\s+)?of\s+(?:the\s+)?)"
    r"(?P<arm>\d{1,3}(?:,\d{3})+|\d+)(?![\w.,·/%]|\s*%)"
)
# "PARTICIPANTS 58 076 women, aged 30-60, invited to …": a methods section that opens with its count
# names who was studied, whatever follows.
_PEOPLE_HEAD = r"(?-i:(?:[A-Z]+,?\s+)*(?:PARTICIPANTS|PATIENTS|SUBJECTS|POPULATION|SAMPLE)\s*:?\s+)"
_LEADING = re.compile(
    rf"^(?P<head>{_PEOPLE_HEAD})?(?:a\s+total\s+of\s+)?(?P<count>{_DIGITS}|{_WORDS})\s+(?:{_BETWEEN})(?:{SUBJECTS})\b",
    re.IGNORECASE,
)


_NUMBER = rf"(?<![\w.,·±/-])(?P<count>{_DIGITS}|{_WORDS})(?![.,·]\d)"
# A count said to be randomised: "100 were randomly allocated", "we randomized 151 patients", "573 patients …
# underwent randomization". A count with no noun needs a noun of people or a plain place before it, so
# "187 clusters were randomly allocated" counts no one: a cluster trial's size is its participants.
_AGES = r"\d+\s*[-–]\s*\d+\s*(?:y|yrs?|years?)\b"  # "women 18–25 years old": an age range, not a count
_SAID_RANDOMISED = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"{_NUMBER}\s+(?:(?P<noun>(?:{_BETWEEN})(?:{SUBJECTS})\b)(?:{_AGES}|(?!\b(?:were|was)\b)[^.;\d]){{0,60}}?|(?:each\s+)?)"
        rf"(?:were|was|had\s+been|have\s+been)\s+(?:\w+\s+)?(?:randomi[sz]ed|allocated|assigned)\b"
        rf"(?P<each>\s+(?:\w+\s+){{0,2}}to\s+each\b)?",
        rf"\brandomi[sz]ed\s+(?:a\s+total\s+of\s+)?{_NUMBER}\s+(?:{_BETWEEN})(?:{SUBJECTS})\b",
        rf"{_NUMBER}\s+(?:{_BETWEEN})(?:{SUBJECTS})\b[^.;]{{0,40}}?\bunderwent\s+randomi[sz]ation\b",
    )
]
# One arm's count and where it went: "93 participants each were allocated to exercise, and 93 to a seated
# control activity", "970 were randomly assigned, 483 to short-term suppression and 487 to long-term".
_TO_ARM = re.compile(
    rf"(?<!\bfrom\s)(?<!\bfrom\s\s){_NUMBER}\s+(?:(?:{_BETWEEN})(?:{SUBJECTS})\s+)?(?:each\s+)?(?:(?:were|was)\s+)?"
    rf"(?:(?:randomly\s+)?(?:randomi[sz]ed|allocated|assigned)\s+)?to\s+(?!\d|each\b|{_NUMBER_WORD}\b)",
    re.IGNORECASE,
)
# Groups named side by side: "1968 men and 1737 women participated", "22,367 youth … and 29,133 adults".
_GROUPS = re.compile(
    rf"{_NUMBER}\s+(?:{_BETWEEN})(?:{SUBJECTS})\b(?!\s*\(\s*\d[\d.]*\s*%)"
    rf"(?:{_AGES}|[^.;%\d]){{0,60}}?\band\s+"
    rf"(?P<second>{_DIGITS}|{_WORDS})(?![.,·]\d)\s+(?:{_BETWEEN})(?:{SUBJECTS})\b(?!\s*\(\s*\d[\d.]*\s*%)",
    re.IGNORECASE,
)
_GROUP_COUNT = re.compile(r"\b(?:two|three|four|five|\d)\s+(?:\w+\s+)?(?:groups|arms)\b", re.IGNORECASE)


def _randomised_counts(sentence: str, text: str) -> list[int]:
    """The counts a sentence says were randomised, one arm's count "randomized to each group" times the
    arms the abstract names ("two groups"; two where it names none), and the arms' counts added up."""
    said = []
    for match in (m for pattern in _SAID_RANDOMISED for m in pattern.finditer(sentence)):
        raw = match.group("count")
        value = _value(raw) or 0
        if value <= 1 or re.fullmatch(r"(?:19|20)\d\d", raw):
            continue
        if (
            "noun" in match.groupdict()
            and not match.group("noun")
            and not _BARE_BEFORE.search(sentence[: match.start()])
        ):
            continue  # "Pretest 2 were randomly assigned": with no noun, a count only after a comma, "of whom" …
        if "each" in match.groupdict() and match.group("each"):
            groups = _GROUP_COUNT.search(text)
            value *= (_value(groups.group(0).split()[0]) or 2) if groups else 2
        said.append(value)
    arms = [_value(m.group("count")) or 0 for m in _TO_ARM.finditer(sentence)]
    if len(arms) >= 2:
        said.append(sum(arms))
    return said


def _groups_total(sentence: str) -> list[int]:
    """Groups named side by side and added up ("11,151 men and 8563 women": 19,714)."""
    return [
        (_value(m.group("count")) or 0) + (_value(m.group("second")) or 0) for m in _GROUPS.finditer(sentence)
    ]


def _bare_counts(sentence: str) -> list[int]:
    counts = []
    for match in _BARE_COUNT.finditer(sentence):
        raw = match.group("count")
        if not _BARE_BEFORE.search(sentence[: match.start()]):
            continue
        if re.fullmatch(r"(?:19|20)\d\d", raw):
            continue  # "between January 2014 and December 2014 were randomized": with no noun, a year
        value = _value(raw)
        if value and value > 1:
            counts.append(value)
    return counts


def _arms_total(sentence: str, counts: list[int]) -> int | None:
    """The arms a sentence gives added up: "placebo (n = 133) or troglitazone (n = 133)" (unless a
    count as large as their sum is stated beside them), else the denominators of the first two
    'events of arm' figures ("12 of 200 … and 31 of 198")."""
    sizes = [
        _value(m.group("count")) or 0
        for m in _N_EQUALS.finditer(sentence)
        if not _THINGS_BEFORE.search(sentence[max(0, m.start() - 40) : m.start()])
    ]
    # "parents (n=120) … randomised to an intervention group (n=60) or a waiting-list group (n=60)"; "Thirty
    # patients (… n=23; … n=7) were randomly assigned to a control (n=15) and a training (n=15) group": a
    # count stated beside parts that add up to it is the whole.
    parts = {sum(sizes[i:j]) for i in range(len(sizes)) for j in range(i + 2, len(sizes) + 1)}
    whole = (len(sizes) >= 3 and max(sizes) * 2 == sum(sizes)) or bool(parts & set(counts))
    if len(sizes) >= 2 and not whole and max(counts, default=0) < sum(sizes) and _ARMS_NAMED.search(sentence):
        return sum(sizes)
    arms = [(_value(m.group("events")) or 0, _value(m.group("arm")) or 0) for m in _ARM.finditer(sentence)]
    arms = [(e, a) for e, a in arms if 0 <= e <= a and a >= 5]
    return arms[0][1] + arms[1][1] if len(arms) >= 2 else None


def _sentences(text: str) -> list[tuple[bool, bool, str]]:
    """Each sentence, whether it opens a methods section (PARTICIPANTS, DESIGN, METHODS …) and
    whether it stands in one."""
    return [
        (zone == "methods" and i == 0, zone == "methods", sentence)
        for zone, part in sections(text)
        for i, sentence in enumerate(split_sentences(part))
    ]


def study_size(text: str) -> int | None:
    """The randomised or enrolled total a text (a whole abstract) states, by the order this module's
    docstring gives; None where it states no count of people or animals."""
    tiers: list[list[int]] = [
        [],
        [],
        [],
        [],
        [],
        [],
    ]  # cases + controls, randomised, enrolled, methods, arms, any
    for opens_methods, in_methods, sentence in _sentences(text):
        if _POPULATION.search(sentence):
            continue
        counts = _counts(sentence)
        leading = _LEADING.match(sentence)
        leading = leading if leading and (opens_methods or leading.group("head")) else None
        sums = [_value(m.group("a")) or 0 for m in _CONTROL_SUM.finditer(sentence)]
        if sums:
            tiers[0].extend(c for c in counts if c > max(sums))  # the sum is the largest count it made
        total = _arms_total(sentence, counts)
        stated = counts + _bare_counts(sentence) + ([total] if total else []) + _groups_total(sentence)
        randomised = _randomised_counts(sentence, text) if _RANDOMISED.search(sentence) else []
        if randomised:
            # "Of 116 patients enrolled, 100 were randomly allocated": the randomised count, not the enrolled
            tiers[1].append(max(randomised + ([total] if total else [])))
        elif stated and _RANDOMISED.search(sentence):
            tiers[1].append(max(stated))
        elif leading and not _is_year(sentence, 0, leading.group("count")):
            tiers[2].append(max([*stated, _value(leading.group("count")) or 0]))
        elif stated and _ENROLLED.search(sentence):
            tiers[2].append(max(stated))
        elif stated and in_methods:
            tiers[3].append(max(stated))
        if total:
            tiers[4].append(total)
        tiers[5].extend(counts)
    return next((max(tier) for tier in tiers if tier), None)


def sample_size(text: str) -> int | None:
    """The study's size a text states (``study_size``): the randomised or enrolled total, else the
    largest number of people or animals it says were studied; None where it states none."""
    return study_size(text)
