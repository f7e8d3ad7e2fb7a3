"""A research question as Lyra judges it: a yes/no question becomes its declarative hypothesis.

"Does vitamin D supplementation reduce fracture risk?" → "Vitamin D supplementation reduces
fracture risk." The rules are deliberately simple (no parser): find the auxiliary, split the
subject from the predicate with a small verb lexicon and word-shape cues, and put the verb back
in agreement with the subject. An open question (What/How/Why…) or a statement is left as it is.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

HYPOTHESIS, OPEN_QUESTION = "hypothesis", "open_question"

_MODALS = {"can", "could", "should", "will", "would", "may", "might", "must", "shall"}
_COPULAS = {"is": "is", "are": "are", "was": "was", "were": "were"}
_DO = {"does", "do", "did"}
_HAVE = {"has", "have", "had"}
_DETERMINERS = {"a", "an", "the", "this", "that", "these", "those", "their", "its", "his", "her", "our", "any",
                "some", "all", "no", "each", "every", "such"}
_PREPOSITIONS = {"of", "in", "on", "for", "with", "to", "from", "by", "at", "among", "after", "during", "between",
                 "versus", "vs", "and", "or", "than", "into", "as", "under", "over", "without", "within"}
# The verbs a question's predicate may start with (no parser: a lexicon and word shape).
VERBS = set("""
accelerate accept account achieve act add address affect age attend call coincide differentiate discriminate
exhibit favor favour perform predispose prime push relate release relieve request run subside think underprescribe
want be aggravate agree alleviate alter ameliorate amplify appear apply
associate attenuate augment avoid benefit block boost bring carry cause change compare compensate compromise confer
confound constitute contribute control correlate correspond cost counteract create cure damage decline decrease
define delay depend deserve detect determine develop differ diminish distinguish disrupt enable encourage enhance
ensure equal exacerbate exceed exert exclude exist explain fall express extend facilitate fail fit follow go guide
harm have help hinder identify impact impair improve increase indicate induce influence inhibit interfere involve
justify lead lengthen limit live lower maintain make matter mediate mimic minimize mitigate modify modulate need
normalise normalize occur offer outperform outweigh persist play pose precede predict prevent produce prolong
promote protect provide raise reach recall receive reduce reflect remain replace represent require reverse result
save see seem shorten show slow stimulate suppress survive take target tend translate trigger understand undergo
vary work worsen yield
""".split())
_VERB_SUFFIXES = ("ize", "ise", "ify")
_ADJECTIVES = set("""
able absent accurate due adequate appropriate available beneficial better bad cost-effective common critical
different effective efficient equivalent essential feasible good harmful helpful higher important inferior
ineffective justified larger likely lower mandatory more less necessary needed noninferior non-inferior possible
present predictive protective reliable relevant reproducible required safe safer similar smaller sufficient
superior true useful valid valuable worse worth worthwhile
""".split())
_IRREGULAR_PAST = {"go": "went", "make": "made", "take": "took", "lead": "led", "have": "had", "see": "saw",
                   "bring": "brought", "undergo": "underwent", "show": "showed", "pay": "paid", "fall": "fell"}
_PRONOUNS = {"it", "we", "you", "they", "i", "he", "she", "this", "that", "these", "those"}
_RELATIVES = {"who", "which", "that", "whom"}
_OPEN_WORDS = {"what", "how", "why", "which", "who", "whom", "whose", "where", "when", "to"}
_TOKEN = re.compile(r"\S+")


class ParsedQuestion(BaseModel):
    """What a task's question asks: a hypothesis to judge, or an open question."""

    origin: Literal["hypothesis", "open_question"]
    hypothesis: str | None = None  # the declarative sentence judged, for a yes/no question


def _bare(word: str) -> str:
    return word.lower().strip(",;:()\"'")


def _third_person(verb: str) -> str:
    low = verb.lower()
    if low in ("have", "be", "do", "go"):
        return {"have": "has", "be": "is", "do": "does", "go": "goes"}[low]
    if re.search(r"(s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def _past(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[low]
    if low.endswith("e"):
        return verb + "d"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ied"
    return verb + "ed"


def _is_verb(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` is the main verb after the subject (never the subject's first word)."""
    word, before = _bare(words[i]), _bare(words[i - 1])
    after = _bare(words[i + 1]) if i + 1 < len(words) else ""
    if not word.isalpha() and "-" not in word:
        return False
    if before in _DETERMINERS or before in _PREPOSITIONS - {"and", "or"} or after == "of":
        return False  # "the use of", "damage of": a noun
    return word in VERBS or word.endswith(_VERB_SUFFIXES)


def _is_participle(word: str, after: str) -> bool:
    """A past participle used as a predicate ("associated with", "undertreated?"), not as a modifier."""
    return bool(re.fullmatch(r"[a-z-]+(ed|en)", word)) and (after in _PREPOSITIONS or after == "")


def _predicate_start(words: list[str], verbs: bool) -> int | None:
    """Index where the predicate begins, after a subject of at least one word."""
    if _bare(words[0]) in _PRONOUNS and (verbs or _bare(words[0]) == "it"):  # "Can we rely…", "Is it…"
        return 1
    if verbs and "be" in [_bare(w) for w in words[1:]]:  # "Can X be treated…?": the passive's "be"
        return 1 + [_bare(w) for w in words[1:]].index("be")
    for i in range(1, len(words)):
        if verbs and _is_verb(words, i):
            return i
    if verbs:
        for i in range(1, len(words)):  # no known verb: a word whose object follows directly
            if i + 1 < len(words) and _bare(words[i + 1]) in _DETERMINERS and _bare(words[i - 1]) not in _PREPOSITIONS:
                return i
        return None
    for i in range(1, len(words)):  # after a copula: "a barrier", "safe", "associated with", "more…"
        word = _bare(words[i])
        after = _bare(words[i + 1]) if i + 1 < len(words) else ""
        if word in _DETERMINERS and word not in ("all", "each", "every", "such", "no") \
                and _bare(words[i - 1]) not in _PREPOSITIONS:  # "of the margin" is still the subject
            return i
        if _bare(words[i - 1]) in _COPULAS or _bare(words[i - 1]) in _DETERMINERS:
            continue  # "women who are treated", "the covering of": still the subject
        if word == "not":  # "Is X not as effective as Y?": the negation opens the predicate
            return i
        if word == "at" and after in ("risk", "increased", "higher", "greater", "lower"):  # "… at risk for"
            return i
        if word.endswith("ly") and i + 1 < len(words):  # "really increased": the adverb opens the predicate
            nxt = _bare(words[i + 1])
            after_next = _bare(words[i + 2]) if i + 2 < len(words) else ""
            if nxt in _ADJECTIVES or _is_participle(nxt, after_next):
                return i
        if word in _ADJECTIVES or word.endswith(("ible", "able")) or _is_participle(word, after) \
                or (word.endswith("ing") and word not in _ADJECTIVES and i + 1 < len(words)
                    and _bare(words[i + 1]) in _PREPOSITIONS):
            return i
    return len(words) - 1 if len(words) > 1 else None  # "Is X worthwhile?": the last word


def _capitalize(text: str) -> str:
    """Upper-case the first letter (after any opening quote or bracket)."""
    match = re.search(r"[A-Za-z0-9]", text)  # "30-day data…" stays as it is
    return text if match is None or match.group().isdigit() else text[:match.start()] + text[match.start()].upper() + text[match.start() + 1:]


def _subject(words: list[str]) -> str:
    first = words[0]
    if first.isalpha() and first[0].isupper() and first[1:].islower() and _bare(first) in _DETERMINERS:
        words = [first.lower(), *words[1:]]
    return _capitalize(" ".join(words))


def to_hypothesis(question: str) -> ParsedQuestion:
    """The declarative hypothesis of a yes/no question; ``open_question`` for anything else."""
    text = " ".join(question.split()).strip()
    opener = _bare(text.split()[0]) if text else ""
    headed = None if opener in _COPULAS.keys() | _DO | _MODALS | _HAVE | _OPEN_WORDS else _after_heading(text)
    if headed is not None:
        return headed
    words = _TOKEN.findall(text.rstrip("?").rstrip())
    if not text.endswith("?") or len(words) < 3:
        return ParsedQuestion(origin=OPEN_QUESTION)
    aux, rest = _bare(words[0]), words[1:]
    if [_bare(w) for w in words[:4]] == ["is", "it", "true", "that"] and len(words) > 4:  # "Is it true that X?" → X
        return _done([_capitalize(" ".join(words[4:]))])
    if aux in _OPEN_WORDS:
        return ParsedQuestion(origin=OPEN_QUESTION)
    if aux in _COPULAS:
        if _bare(rest[0]) == "there":  # "Is there a link…?" → "There is a link…"
            return _done(["There", aux, *rest[1:]])
        cut = _predicate_start(rest, verbs=False)
        return _done([_subject(rest[:cut]), aux, *rest[cut:]]) if cut else ParsedQuestion(origin=OPEN_QUESTION)
    if aux in _DO or aux in _MODALS or aux in _HAVE:
        if aux in _HAVE:
            cut = next((i for i in range(1, len(rest)) if _is_participle(_bare(rest[i]), "")
                        or re.fullmatch(r"[a-z]+(ed|en|wn|ne)", _bare(rest[i]))), None)
        else:
            cut = _predicate_start(rest, verbs=True)
        if cut is None:
            return ParsedQuestion(origin=OPEN_QUESTION)
        verb = rest[cut]
        if aux == "does":
            verb_words = [_third_person(verb)]
        elif aux == "did":
            verb_words = [_past(verb)]
        elif aux == "do":
            verb_words = [verb]
        else:
            verb_words = [aux, verb]
        return _done([_subject(rest[:cut]), *verb_words, *rest[cut + 1:]])
    return ParsedQuestion(origin=OPEN_QUESTION)


_HEADING = re.compile(r"^(?P<heading>.{3,}?)(?::\s+|\s*--\s*|\.\s+(?=[A-Z])|,\s+(?=(?:a|an|the)\s))(?P<asked>[^:]+\?)$")
_STANDS_FOR_HEADING = {"it", "they", "this", "these"}


def _after_heading(text: str) -> ParsedQuestion | None:
    """A title-style question: "Measuring mortality: are 30-day data enough?" (the question after
    the heading), "Multidisciplinary clinics. Do they work?" (the pronoun stands for the heading),
    "Xanthogranulomatous cholecystitis: a premalignant condition?" (the heading is what is asked
    about: "… is a premalignant condition")."""
    match = _HEADING.match(text)
    if match is None or not text.endswith("?"):
        return None
    heading, asked = match.group("heading").strip(), match.group("asked").strip()
    parsed = to_hypothesis(asked[:1].upper() + asked[1:])
    if parsed.origin == HYPOTHESIS and parsed.hypothesis:
        first, _, rest = parsed.hypothesis.partition(" ")
        if first.lower() in _STANDS_FOR_HEADING and rest:
            return _done([heading, rest.rstrip(".")])
        if _mentions(parsed.hypothesis, heading):
            return parsed
        # "Delayed diagnosis of X: are current guidelines sufficient?" — keep what it is about
        body = parsed.hypothesis.rstrip(".")
        if first.isalpha() and first[:1].isupper() and first[1:].islower():
            body = body[:1].lower() + body[1:]
        return _done(["In", heading[:1].lower() + heading[1:] if heading[1:2].islower() else heading, ",", body])
    first_word = _bare(asked.split()[0])
    if first_word in _OPEN_WORDS | _COPULAS.keys() | _DO | _MODALS or first_word in VERBS:
        return None  # an open question after the heading, or one the rules cannot read
    return _done([heading, "is", asked.rstrip("?").rstrip()])


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9-]{4,}", text.lower())} - _DETERMINERS - _PREPOSITIONS


def _mentions(sentence: str, heading: str) -> bool:
    """Whether ``sentence`` already names at least half of what the heading is about."""
    wanted = _content_words(heading)
    return not wanted or len(wanted & _content_words(sentence)) * 2 >= len(wanted)


def _done(words: list[str]) -> ParsedQuestion:
    sentence = " ".join(words).replace(" , ", ", ").rstrip(" ,;:")
    return ParsedQuestion(origin=HYPOTHESIS, hypothesis=_capitalize(sentence) + ".")
