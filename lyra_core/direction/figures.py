"""The effect figures a finding states, and the direction they show by number alone.

Read: ratios (OR, RR, HR, IRR … with their 95 % CI, or a p-value), differences (MD, SMD, a
difference with its CI), two arms' figures ("28 % vs 38 %", "12/40 vs 20/41", "5.1 ± 1.2 vs 6.3 ±
1.0") with which arm is which, and p-values. A ratio whose CI lies below 1 is a decrease, above 1
an increase, across 1 no significant difference; a difference is read against 0; two arms are
compared from the exposure's arm to the comparator's (a rate lower in the placebo arm is an
increase with the drug) and count as significant only with p < 0.05 beside them, or, for events of
a total in each arm with no p-value stated, by Fisher's exact test on the counts (``fisher``).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from lyra_core.direction.arms import named_order, names_arm
from lyra_core.direction.fisher import fisher_exact_p

Way = Literal["up", "down", "none"]
_NUM = r"[-−–]?\d+(?:[.,·]\d+)?"
_RANGE = rf"(?P<low>{_NUM})\s*%?\s*(?:-|–|—|to|,|;)\s*(?P<high>{_NUM})"
# A ratio named in words or by its abbreviation, then its value after any linking words ("HR 0.52",
# "RR = 0.52", "OR, 0.52", "odds ratio of 1.8", "relative risk: 0.7", "the hazard ratio for stroke with
# warfarin compared with aspirin was 0.52"); a number followed by % or / is not the value ("[95%CI]").
_RATIO = re.compile(
    r"\b(?P<label>a?ORs?|a?RRs?|[as]?HRs?|HRR|IRRs?|SIRs?|SMRs?|(?i:(?:adjusted\s+|pooled\s+|summary\s+)?(?:odds|hazard|risk|rate|"
    r"incidence\s+rate)\s+ratios?|relative\s+risks?))\b"
    r"(?P<gap>[^0-9\n.;]{0,80}?|[^0-9\n]{0,45}?)(?:[\(\[]\s*95\s*%\s*CI\s*[\)\]]\s*[:=,]?\s*)?(?P<value>\d+(?:[.·]\d+)?)(?![\d.·]|\s*%|\s*/\d)"
)
_DIFF = re.compile(
    r"\b(?P<label>W?MD|SMD|ARR|RRR|A?RD|(?i:mean\s+differences?|(?:absolute\s+)?risk\s+differences?|"
    r"(?:absolute|relative)\s+risk\s+reductions?|(?:absolute\s+|relative\s+)?reductions?\s+in\s+(?:the\s+)?risk))\b"
    rf"[^0-9\n−–-]{{0,25}}?(?P<value>{_NUM})(?![\d.·]|-[A-Za-z])"
)  # not "1-year"
# The interval right after a figure: "(95% CI 0.64-0.74)", "[0.64, 0.74]", "95% confidence interval, 1.10 to 1.91".
_INTERVAL = re.compile(
    rf"^[\s,;:]*(?:[A-Za-zµ/%]{{1,8}}\d?\s*)?[\(\[]?\s*(?:(?:95|90|99)\s*(?:%|percent|per\s+cent)\s*)?(?:CI|confidence\s+intervals?|credible\s+interval|"
    rf"CrI)?(?:\s*[\(\[]\s*CI\s*[\)\]])?\s*[:=,]?\s*[\(\[]?\s*{_RANGE}",
    re.IGNORECASE,
)
_P = re.compile(
    r"\b[Pp]\s*(?:-?value)?\s*(?P<op>[<>=≤≥]|<\s*=|>\s*=)\s*(?P<value>0?[.·]\d+|\d(?:[.·]\d+)?(?:\s*[×x]\s*10\s*[-−]\s*\d+)?)"
)
# An arm's figure carries its unit: a percentage, a mean ± SD, events/total or "events of total" (with
# its percentage), a count with its percentage ("12 (6%)"), a mean with its SD in brackets ("5.5 [1.6]").
# A count is compared by its share of its total: 12/200 vs 31/198 is 6 % vs 15.7 %.
_ARM_VALUE = (
    r"(?<![\d./‒–])(?<!\d\s[-–‒]\s)(?P<{name}>[-−–]?\d+(?:[.·]\d+)?)\s*(?:%(?:\s*[\(\[][^()\[\]\n]{{1,20}}[\)\]])?|±\s*\d+(?:[.·]\d+)?"
    r"|(?:/|\s(?:out\s+)?of\s)\s*(?P<{name}_total>\d+)(?:\s*\(\d+(?:[.·]\d+)?\s*%\))?"
    r"|\(\s*(?P<{name}_share>\d+(?:[.·]\d+)?)\s*%\s*\)"
    r"|[\(\[]\s*\d+(?:[.·]\d+)?\s*[\)\]])"
)
# Between the two figures: words, where a digit may only end a name ("omega-3", "COVID-19", "IL-6").
_GAP = r"(?:[^0-9\n]|(?<=[A-Za-z-])\d+(?![\d.%])){0,45}?"
_ARMS = re.compile(
    _ARM_VALUE.format(name="a")
    + _GAP
    + r"\b(?:vs\.?|versus|compared\s+(?:with|to)|and)\s+"
    + _GAP
    + _ARM_VALUE.format(name="b")
    + r"(?P<tail>[^.;]{0,60})",
    re.IGNORECASE,
)
CONTROL_WORDS = re.compile(
    r"\b(placebo|control|controls|usual\s+care|sham|vehicle|untreated|standard\s+(?:care|"
    r"treatment|therapy)|no\s+treatment|comparison\s+(?:group|arm)s?|conventional|non-?users?|unexposed|"
    r"non-?smokers|baseline|wild[- ]type|saline)\b",
    re.IGNORECASE,
)


class EffectFigure(BaseModel):
    """One figure as written, what it compares to, and the direction it shows."""

    kind: Literal["ratio", "difference", "arms", "p_value"]
    label: str
    value: float
    low: float | None = None
    high: float | None = None
    p: float | None = None
    text: str
    way: Way | None = None  # None: the direction is there but not shown to be significant
    tested: bool = False  # the significance is Fisher's exact test run here on the counts, none was stated

    def describe(self) -> str:
        return self.text


def _number(text: str) -> float:
    text = text.replace("−", "-").replace("–", "-").replace("·", ".").replace(",", ".")
    return float(text)


def _window(text: str, start: int, width: int) -> str:
    """``width`` characters from ``start``, not cut inside a number ("P = 0.34" is not "P = 0")."""
    end = start + width
    while end < len(text) and (text[end].isdigit() or text[end] in ".·"):
        end += 1
    return text[start:end]


def _interval(text: str, start: int) -> tuple[float | None, float | None, int]:
    """The interval written right after position ``start``, and where it ends."""
    match = _INTERVAL.search(text[start : start + 60])
    if not match:
        return None, None, start
    return _number(match.group("low")), _number(match.group("high")), start + match.end()


# "p = NS", "(NS)", "n.s.": a comparison stated not to be significant
_NOT_SIGNIFICANT = re.compile(r"(?:\b[Pp]\s*[=:]?\s*|[\(\[;,]\s*)(?:NS|n\.\s?s\.|ns)\b(?![-\w])")
# two figures compared with a p-value of 0.05 or more and no other p-value: no significant difference,
# whichever arm is which ("0.04 versus 0.09 in the X and Y groups, respectively (p = 0.129)")
_COMPARED = re.compile(
    r"(?<![\d.])\d+(?:[.·]\d+)?[^0-9\n]{0,25}?\b(?:vs\.?|versus|compared\s+(?:with|to)|and)\s+"
    r"[^0-9\n]{0,30}?(?<![\d.])\d+(?:[.·]\d+)?",
    re.IGNORECASE,
)


def p_values(text: str) -> list[tuple[str, float]]:
    out = []
    for match in _P.finditer(text):
        raw = match.group("value").replace("·", ".")
        sci = re.match(r"(\d+(?:\.\d+)?)\s*[×x]\s*10\s*[-−]\s*(\d+)", raw)
        value = float(sci.group(1)) * 10 ** -int(sci.group(2)) if sci else float(raw)
        out.append((match.group("op").replace(" ", ""), value))
    if not out and _NOT_SIGNIFICANT.search(text):
        out.append((">", 0.05))
    return out


def _significance(p: list[tuple[str, float]]) -> bool | None:
    """True where a p-value shows significance at 0.05, False where it does not, None without one."""
    if not p:
        return None
    op, value = p[0]
    if op in ("<", "≤", "<=", "="):
        return value < 0.05 or (op in ("<", "≤", "<=") and value <= 0.05)
    return False


def _against(
    value: float, low: float | None, high: float | None, reference: float, significant: bool | None
) -> Way | None:
    if low is not None and high is not None:
        low, high = min(low, high), max(low, high)
        if high < reference:
            return "down"
        if low > reference:
            return "up"
        return "none"
    if significant is False:
        return "none"
    if significant:
        return "down" if value < reference else "up" if value > reference else "none"
    return None


def _stated(
    pattern: re.Pattern[str], kind: Literal["ratio", "difference"], reference: float, text: str
) -> list[EffectFigure]:
    """Every figure ``pattern`` finds in ``text``, read against ``reference`` (1 for a ratio, 0 for a
    difference) with the interval or p-value written right after it."""
    figures = []
    for match in pattern.finditer(text):
        value = _number(match.group("value"))
        low, high, end = _interval(text, match.end())
        if kind == "ratio" and (
            not 0 < value < 100 or (low is not None and high is not None and (low < 0 or high < 0))
        ):
            continue  # not a ratio: "OR" in running text, a count
        nearby = p_values(_window(text, end, 40))
        label = " ".join(match.group("label").split())
        way = _against(value, low, high, reference, _significance(nearby))
        if kind == "difference" and _REDUCTION.search(label):  # a risk reduction of 3 % is a lower risk
            way = "down" if way == "up" else "up" if way == "down" else way
        figures.append(
            EffectFigure(
                kind=kind,
                label=label,
                value=value,
                low=low,
                high=high,
                p=nearby[0][1] if nearby else None,
                text=_shown(label, value, low, high),
                way=way,
            )
        )
    return figures


_REDUCTION = re.compile(r"reduction|^A?RRR?$", re.IGNORECASE)


def ratios(text: str) -> list[EffectFigure]:
    return _stated(_RATIO, "ratio", 1.0, text)


def differences(text: str) -> list[EffectFigure]:
    return _stated(_DIFF, "difference", 0.0, text)


def arms(text: str, exposure: str, comparator: str = "") -> list[EffectFigure]:
    """Two arms' figures ordered exposure → comparator, where the text says which arm is which."""
    figures = []
    for match in _ARMS.finditer(text):
        significant = _significance(p_values(_window(text, match.end("b"), 60)))
        counts_a, counts_b = _counts(match, "a"), _counts(match, "b")
        p_counts = (
            fisher_exact_p(*counts_a, *counts_b) if significant is None and counts_a and counts_b else None
        )
        if p_counts is not None:
            significant = p_counts < 0.05
        a, b = _arm_figure(match, "a"), _arm_figure(match, "b")
        # the words before the first figure, within its clause ("symptom control) was seen in 8.9 % …")
        before = re.split(r"[.;:)]\s", text[max(0, match.start() - 25) : match.start()])[-1]
        between = text[match.end("a") : match.start("b")]
        tail = match.group("tail")
        # the arm's name stands before its figure or right after it ("17.5 h for X as compared to …")
        link = re.search(r"\b(?:vs\.?|versus|compared\s+(?:with|to)|and)\s", between, re.IGNORECASE)
        split = link.start() if link else len(between)
        order = _mention_order(text[: match.start()], exposure, comparator)
        cut = tail.lower().find("respectively")
        labels = _two_labels(tail[:cut]) if cut >= 0 else ("", "")
        if order is None and labels[1].strip():  # "12 % and 20 % in the X and Y groups, respectively"
            order = _exposure_first(*labels, exposure, comparator)
        if (
            order is None and cut >= 0 and not tail[:cut].strip(" ,;()")
        ):  # "for the X and Y groups was 13.8 and 17.5 respectively"
            clause = re.split(r"[.;]\s", text[max(0, match.start() - 80) : match.start()])[-1]
            order = _exposure_first(
                *_two_labels(re.sub(r"\s+(?:was|were|had|of)\s*$", "", clause.strip())), exposure, comparator
            )
        if order is None:
            order = _exposure_first(before + between[:split], between[split:] + " " + tail[:40], exposure)
        if order is None and comparator:
            # the claim's comparator named beside a figure ("90.6% with infusion vs 78.4% with bolus"); the
            # words before the first figure end the clause that named the arms, in any order
            order = _exposure_first(between[:split], between[split:] + " " + tail[:40], exposure, comparator)
        if order is None:
            continue
        mine, theirs = (a, b) if order else (b, a)
        way: Way | None = None
        if significant is False:
            way = "none"
        elif significant and mine != theirs:
            way = "up" if mine > theirs else "down"
        p_text = _p_text(_window(text, match.end("b"), 60))
        if p_counts is not None:
            shown_p = f"{'<' if p_counts < 0.001 else '='} {max(p_counts, 0.001):.2g}"
            p_text = f"{shown_p} by Fisher's exact test on the counts"
        shown = f"{_fmt(mine)} vs {_fmt(theirs)}" + (f", p {p_text}" if p_text else "")
        figures.append(
            EffectFigure(
                kind="arms",
                label="arms",
                value=mine - theirs,
                text=shown,
                way=way,
                tested=p_counts is not None,
            )
        )
    return figures


def _counts(match: re.Match[str], name: str) -> tuple[int, int] | None:
    """An arm's events and total where it is written as "12 of 200" or "12/200", else None."""
    total = match.group(f"{name}_total")
    events = _number(match.group(name))
    if not total or total.startswith("0") or events != int(events) or not 0 <= events <= int(total):
        return None
    return int(events), int(total)


def _arm_figure(match: re.Match[str], name: str) -> float:
    """An arm's figure: a count as its share of its total (in %), a count given with its % as that %."""
    value = _number(match.group(name))
    if match.group(f"{name}_share"):
        return _number(match.group(f"{name}_share"))
    total = match.group(f"{name}_total")
    if total and float(total) > 0:
        return round(100 * value / float(total), 1)
    return value


def _mention_order(before: str, exposure: str, comparator: str = "") -> bool | None:
    """ "Y was shorter in the X group than in the control group (73 ± 16 vs 83 ± 20 h)": figures in
    parentheses after a clause that names both arms follow the order the clause named them in. The
    claim's ``comparator`` named by its own words stands for the control group."""
    opened = _OPENED.search(before)  # "(", "(response ", "(as treated: "
    if opened is None:
        return None
    clause = re.split(r"[.;]\s|\)", before[: opened.start()])[-1].lower()
    control = CONTROL_WORDS.search(clause)
    if control is None and comparator:
        return named_order(clause, exposure, comparator)
    words = _arm_words(exposure) - _GENERIC_ARM_WORDS
    named = [m.start() for m in _ARM_WORD.finditer(clause) if _arm_words(m.group(0)) & words]
    named += [m.start() for m in _TREATED_ARM.finditer(clause)]
    named.sort()
    if control is None or not named:
        return None
    first_named = named[0]
    if first_named < control.start() and not CONTROL_WORDS.search(clause[first_named : control.start()]):
        return True
    if control.start() < first_named and all(n > control.end() for n in named):
        return False
    return None


_TREATED_ARM = re.compile(
    r"\b(?:active|intervention|treated|treatment|experimental|study)\s+(?:group|arm|cluster|"
    r"participant|patient|subject)s?\b"
)
_OPENED = re.compile(r"\(\s*(?:[A-Za-z-]+\s*){0,2}[:=]?\s*$")
# a word of an arm's name, and the parts of a hyphenated one ("morphine-induced" names morphine)
_ARM_WORD = re.compile(r"[a-z][a-z0-9]{2,}(?:-[a-z0-9]+)*|(?<=-)[a-z][a-z0-9]{2,}")


def _arm_words(text: str) -> set[str]:
    words = set(_ARM_WORD.findall(text.lower()))
    return words | {part for w in words for part in w.split("-") if len(part) > 2}


_GENERIC_ARM_WORDS = {
    "group",
    "groups",
    "arm",
    "the",
    "and",
    "with",
    "patients",
    "treatment",
    "therapy",
    "plus",
}


def _two_labels(before: str) -> tuple[str, str]:
    """ "… in the aspirin and placebo groups, respectively": the two names before "respectively"."""
    parts = [p for p in re.split(r"\band\b|\bvs\.?\b|\bversus\b|,", before) if p.strip()]
    return (parts[-2], parts[-1]) if len(parts) >= 2 else (before, "")


def _exposure_first(first: str, second: str, exposure: str, comparator: str = "") -> bool | None:
    """True when the first arm is the exposure's, False when it is the comparator's, None when the
    text does not say. A control word names the comparator's arm, and so do the words of the claim's
    ``comparator`` that the exposure does not hold."""
    first_control = bool(CONTROL_WORDS.search(first)) or names_arm(first, comparator, exposure)
    second_control = bool(CONTROL_WORDS.search(second)) or names_arm(second, comparator, exposure)
    if second_control and not first_control:
        return True
    if first_control and not second_control:
        return False
    words = _arm_words(exposure) - _GENERIC_ARM_WORDS
    in_first, in_second = bool(words & _arm_words(first)), bool(words & _arm_words(second))
    if in_first != in_second:
        return in_first
    return None


def _p_text(text: str) -> str:
    found = p_values(text)
    return f"{found[0][0]} {found[0][1]:g}" if found else ""


def _fmt(value: float) -> str:
    return f"{value:g}"


def _shown(label: str, value: float, low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return f"{label} {_fmt(value)}"
    dash = " to " if min(low, high) < 0 else "–"  # "-1.9–2.9" reads as a range of negatives
    return f"{label} {_fmt(value)}, {_fmt(low)}{dash}{_fmt(high)}"


def compared_not_significant(text: str) -> list[EffectFigure]:
    """A comparison every stated p-value of which is 0.05 or more ("No significant difference was found
    between the three groups (P = 0.076)", "(NS)"): no significant difference. On Evidence Inference
    train and validation spans with no other figure, 377 of 392 such spans are annotated so."""
    stated = p_values(text)
    if not stated or any(_significance([p]) is not False for p in stated):
        return []
    return [
        EffectFigure(
            kind="arms",
            label="compared",
            value=0.0,
            text=f"no significant difference, p {_p_text(text)}",
            way="none",
        )
    ]


def significance_stated(text: str) -> list[EffectFigure]:
    """The significant p-value a comparison in words is qualified by ("significantly lower (p = 0.003)"):
    it shows no direction itself, but a reason quotes it beside the words that do."""
    stated = p_values(text)
    if not stated or not all(_significance([p]) for p in stated):
        return []
    return [
        EffectFigure(kind="p_value", label="p", value=stated[0][1], p=stated[0][1], text=f"p {_p_text(text)}")
    ]


def effect_figures(text: str, exposure: str = "", comparator: str = "") -> list[EffectFigure]:
    """Every figure the passage states, ratios first; else a comparison stated not significant, or the
    significant p-value the words' comparison is qualified by."""
    found = [*ratios(text), *differences(text), *arms(text, exposure, comparator)]
    return found or compared_not_significant(text) or significance_stated(text)


def figures_way(figures: list[EffectFigure]) -> Way | None:
    """The direction the figures agree on, or None where they show none or disagree."""
    ways = {f.way for f in figures if f.way is not None}
    return ways.pop() if len(ways) == 1 else None
