"""What a word of a question can be: function words by rule, content words from LemmInflect's
English lexicon (derived from the NIH SPECIALIST Lexicon, shipped inside the package, read
offline), and the verb forms that lexicon inflects to."""

from __future__ import annotations

import re
from functools import lru_cache

DO = {"do", "does", "did"}
HAVE = {"has", "have", "had"}
COPULAS = {"is", "are", "was", "were", "am"}
MODALS = {"can", "could", "should", "will", "would", "may", "might", "must", "shall"}
# English's auxiliary verbs, positive and uncontracted: the one list that questions are read with and
# that claims are negated (lyra_core.claim_rewrites) and made questions of (bench.answers) by.
AUXILIARY_VERBS = frozenset(DO | HAVE | COPULAS | MODALS)
# The auxiliaries that open a yes/no question, each with its positive, uncontracted form.
AUXILIARIES = {a: a for a in AUXILIARY_VERBS} | {
    "don't": "do",
    "doesn't": "does",
    "didn't": "did",
    "isn't": "is",
    "aren't": "are",
    "wasn't": "was",
    "weren't": "were",
    "hasn't": "has",
    "haven't": "have",
    "hadn't": "had",
    "can't": "can",
    "cannot": "can",
    "couldn't": "could",
    "shouldn't": "should",
    "won't": "will",
    "wouldn't": "would",
    "mightn't": "might",
    "mustn't": "must",
}
DETERMINERS = {
    "a",
    "an",
    "the",
    "this",
    "that",
    "these",
    "those",
    "their",
    "its",
    "his",
    "her",
    "our",
    "your",
    "my",
    "any",
    "some",
    "all",
    "no",
    "each",
    "every",
    "such",
    "both",
    "either",
    "neither",
    "another",
    "other",
    "many",
    "much",
    "few",
    "several",
    "most",
}
PREPOSITIONS = {
    "of",
    "in",
    "on",
    "for",
    "with",
    "to",
    "from",
    "by",
    "at",
    "among",
    "amongst",
    "after",
    "before",
    "during",
    "between",
    "versus",
    "vs",
    "vs.",
    "than",
    "into",
    "onto",
    "as",
    "under",
    "over",
    "without",
    "within",
    "across",
    "through",
    "throughout",
    "via",
    "per",
    "about",
    "against",
    "beyond",
    "despite",
    "following",
    "toward",
    "towards",
    "upon",
    "like",
    "since",
    "until",
    "around",
    "near",
    "regarding",
}
CONJUNCTIONS = {"and", "or", "nor", "but", "&"}
PRONOUNS = {
    "it",
    "we",
    "you",
    "they",
    "i",
    "he",
    "she",
    "this",
    "that",
    "these",
    "those",
    "there",
    "one",
    "anyone",
    "someone",
    "something",
    "anything",
}
RELATIVES = {"who", "which", "that", "whom", "whose", "where", "when"}
OPEN_WORDS = {"what", "how", "why", "which", "who", "whom", "whose", "where", "when", "to"}
NEGATIONS = {"not", "never"}
# Comparatives and quantities that open a predicate: "… progress faster", "… score lower", "… more likely".
COMPARATIVES = {
    "more",
    "less",
    "fewer",
    "better",
    "worse",
    "higher",
    "lower",
    "greater",
    "smaller",
    "larger",
    "faster",
    "slower",
    "longer",
    "shorter",
    "earlier",
    "later",
    "superior",
    "inferior",
    "equivalent",
    "similar",
    "different",
    "comparable",
    "as",
}
_VERB_SUFFIXES = ("ize", "ise", "ify", "ate")
_ADJECTIVE_SUFFIXES = ("ible", "able", "ive", "ous", "ful", "ic", "al", "ary", "ar")
_NOUN_SUFFIXES = (
    "tion",
    "sion",
    "ment",
    "ness",
    "ity",
    "ism",
    "ogy",
    "ance",
    "ence",
    "ship",
    "emia",
    "itis",
    "osis",
    "oma",
    "ectomy",
    "otomy",
    "plasty",
    "scopy",
    "graphy",
    "therapy",
    "ist",
    "ology",
)


def bare(word: str) -> str:
    """The word, lower-cased, without the punctuation around it (curly apostrophes made straight)."""
    return word.lower().replace("\u2019", "'").strip(",;:()[]\"'?.!")


@lru_cache(maxsize=20000)
def classes(word: str) -> frozenset[str]:
    """The parts of speech the lexicon knows ``word`` as (NOUN, VERB, ADJ, ADV, AUX); empty when unknown."""
    import lemminflect  # its lexicons load on the first word read, not with every command

    return frozenset(lemminflect.getAllLemmas(word)) if word.isascii() else frozenset()


def is_noun(word: str) -> bool:
    """A word the lexicon knows as a noun, or an unknown word without a verb's suffix (a drug, a gene…)."""
    if word in DETERMINERS | PREPOSITIONS | CONJUNCTIONS | PRONOUNS | RELATIVES | NEGATIONS:
        return False
    found = classes(word)
    if found:
        return "NOUN" in found
    return word.endswith(_NOUN_SUFFIXES) or not word.endswith((*_VERB_SUFFIXES, *_ADJECTIVE_SUFFIXES))


@lru_cache(maxsize=20000)
def is_base_verb(word: str) -> bool:
    """Whether ``word`` is a verb's base form ("reduce", "progress", "do"): the word a do-question's
    auxiliary stands before. An unknown word counts only with a verb suffix ("anticoagulate")."""
    import lemminflect

    if not re.fullmatch(r"[a-z][a-z-]*", word):
        return False
    known = lemminflect.getAllLemmas(word, "VERB").get("VERB", ()) + lemminflect.getAllLemmas(
        word, "AUX"
    ).get("AUX", ())
    if known:
        return word in known
    return not classes(word) and word.endswith(_VERB_SUFFIXES) and not word.endswith(_NOUN_SUFFIXES)


@lru_cache(maxsize=20000)
def is_participle(word: str) -> bool:
    """Whether ``word`` is a past participle ("associated", "given", "undertreated"); never a
    hyphenated compound ("disease-related" describes a noun) but a prefixed verb ("re-emerged")."""
    import lemminflect

    if not re.fullmatch(r"(?:(?:re|co|pre|post|over|under|un|mis|de|out)-)?[a-z]+", word):
        return False
    lemmas = lemminflect.getAllLemmas(word, "VERB").get("VERB", ())
    if not lemmas and not classes(word) and re.fullmatch(r"[a-z-]+(ed|en)", word):
        lemmas = lemminflect.getAllLemmasOOV(word, "VERB").get("VERB", ())
    return any(word in lemminflect.getInflection(lemma, "VBN") for lemma in lemmas)


def is_adverb(word: str) -> bool:
    """An adverb that may stand between the subject and the verb ("really", "significantly", "ever")."""
    return word in (
        "ever",
        "also",
        "still",
        "really",
        "actually",
        "truly",
        "indeed",
        "always",
        "further",
        "now",
    ) or (word.endswith("ly") and len(word) > 4 and "ADV" in classes(word))


def is_adjective(word: str) -> bool:
    """An adjective that can close a copula question ("safe", "cost-effective", "advantageous")."""
    if word in COMPARATIVES:
        return True
    if "-" in word:  # "cost-effective", "non-inferior": the last part decides
        return is_adjective(word.rsplit("-", 1)[1])
    found = classes(word)
    return "ADJ" in found or (not found and word.endswith(_ADJECTIVE_SUFFIXES))


def third_person(verb: str) -> str:
    """'reduce' → 'reduces', 'have' → 'has'."""
    if verb in ("be", "have", "do"):
        return {"be": "is", "have": "has", "do": "does"}[verb]
    return _inflect(verb, "VBZ")


def past(verb: str) -> str:
    """'reduce' → 'reduced', 'undergo' → 'underwent'."""
    return _inflect(verb, "VBD")


def _inflect(verb: str, tag: str) -> str:
    import lemminflect

    forms: tuple[str, ...] = lemminflect.getInflection(verb.lower(), tag)
    if not forms:
        return verb
    return (
        forms[0][:1].upper() + forms[0][1:] if verb[:1].isupper() else forms[0]
    )  # "Influence" → "Influences"
