"""Where a yes/no question's subject ends and its predicate begins, read from the sentence's
structure: word classes from the lexicon (lyra_core.hypothesis.words), the words around each
candidate, and the auxiliary's agreement. Each finder returns the predicate's index in the words
after the auxiliary and whether the reading is sure; None when no reading fits."""

from __future__ import annotations

from typing import NamedTuple

from lyra_core.hypothesis.words import (
    COMPARATIVES,
    CONJUNCTIONS,
    DETERMINERS,
    NEGATIONS,
    PREPOSITIONS,
    PRONOUNS,
    RELATIVES,
    bare,
    classes,
    is_adjective,
    is_adverb,
    is_base_verb,
    is_noun,
    is_participle,
)


class Cut(NamedTuple):
    """The predicate starts at word ``start``; ``sure`` is False where another split reads as well."""

    start: int
    sure: bool


def _word(words: list[str], i: int) -> str:
    return bare(words[i]) if 0 <= i < len(words) else ""


def _is_name(token: str) -> bool:
    """A name or an acronym inside the sentence ("PRISM", "Crohn's", "A"): never the verb. In a
    question written in title case ("Does Viral Co-Infection Influence …?") only acronyms count."""
    core = token.strip(",;:()[]\"'?.!")
    if not core:
        return False
    if any(c.isdigit() for c in core) or (core.isupper() and len(core) > 1) or core == "A":
        return True
    return core[0].isupper() and not _TITLE_CASE[0]


_TITLE_CASE = [False]  # set per question by title_case(): whether capitals mark names


def title_case(words: list[str]) -> None:
    """Note whether the question is written in title case (most words of four letters or more capitalised)."""
    long = [w for w in words if len(w) > 3 and w[:1].isalpha()]
    _TITLE_CASE[0] = bool(long) and sum(w[0].isupper() for w in long) * 3 >= len(long) * 2


def _closes_noun_phrase(word: str) -> bool:
    """Whether a subject may end on ``word`` (a noun, a name, a number, a closing bracket…)."""
    return (
        bool(word)
        and word not in DETERMINERS | PREPOSITIONS | CONJUNCTIONS | RELATIVES - {"that"}
        and word != "to"
        and not (
            is_adjective(word)
            and word not in COMPARATIVES
            and (not is_noun(word) or word.endswith(("ive", "ous", "ic")))
        )
    )


def _verb_candidate(words: list[str], i: int, after_clause: bool) -> bool:
    token, word, before, after = words[i], _word(words, i), _word(words, i - 1), _word(words, i + 1)
    if _is_name(token) or not is_base_verb(word):
        return False
    if before in DETERMINERS | PREPOSITIONS or words[i - 1].endswith(
        ("'s", "s'")
    ):  # "the use", "exposed to lead"
        return False
    if after == "of" and is_noun(word):  # "use of", "damage of": a noun
        return False
    return _closes_noun_phrase(before) or is_adverb(before) or (after_clause and is_adjective(before))


def base_verb(words: list[str]) -> Cut | None:
    """The main verb in its base form after a subject of at least one word (do, does, did, modals)."""
    if _word(words, 0) in PRONOUNS - {"that", "this", "these", "those"}:
        return Cut(1, True)  # "Can we rely…", "Does it matter…"
    passive = next(
        (i for i in range(1, len(words)) if _word(words, i) == "be" and _word(words, i - 1) != "to"), None
    )
    if passive is not None:  # "Can X be treated…": the passive's auxiliary
        return Cut(passive, True)
    clause_verb_at, after_clause = -1, False
    for i in range(1, len(words)):
        word, before = _word(words, i), _word(words, i - 1)
        if word in NEGATIONS and _closes_noun_phrase(before):
            return Cut(i, True)  # "Does X not reduce…": the negation opens the predicate
        if word in RELATIVES - {
            "that",
            "where",
            "when",
        }:  # "patients who smoke …": that clause's verb is not the main one
            clause_verb_at, after_clause = i + 1, True
            continue
        if i == clause_verb_at:
            continue
        if not _verb_candidate(words, i, after_clause):
            continue
        choice = _noun_or_verb(words, i)
        if choice is None:
            continue
        return Cut(choice.start, choice.sure and not after_clause)
    return None


def _noun_or_verb(words: list[str], i: int) -> Cut | None:
    """The verb at ``i``, or None when the verb that follows makes ``i`` the end of the subject's
    noun ("tumour size predict", "drug dose matter?"); not sure when both readings fit
    ("alcohol use increase risk")."""
    word, after, after2 = _word(words, i), _word(words, i + 1), _word(words, i + 2)
    if (
        word == "help"
        and not is_adjective(_word(words, i - 1))
        and ((is_base_verb(after) and not is_noun(after)) or (after == "to" and is_base_verb(after2)))
    ):
        return Cut(i, True)  # "X help prevent Y": "help" leads the verb ("social help improve…" is a noun)
    if not is_noun(word) or _plural_noun(_word(words, i - 1)):
        return Cut(i, True)  # "lymph nodes help predict…": a plural noun ends the subject
    later = [j for j in range(i + 2, len(words)) if _verb_candidate(words, j, False)]
    if later and not is_noun(_word(words, later[0])) and after not in DETERMINERS:
        return None  # "dobutamine stress echocardiography induce…": a word that is only a verb comes later
    if after in PREPOSITIONS - {
        "of"
    }:  # "patient position during surgery influence…": the verb after the phrase
        if later and later[0] + 1 < len(words) and _word(words, later[0] + 1) not in PREPOSITIONS:
            return None
        if later:
            return Cut(i, False)  # "work in patients with liver damage": either could be the verb
    if (
        i + 1 >= len(words)
        or _is_name(words[i + 1])
        or not is_base_verb(after)
        or after in COMPARATIVES
        or "ADV" in classes(after)
    ):
        return Cut(i, True)
    if not is_noun(after) or (is_base_verb(after2) and not is_noun(after2)):
        return None  # "size predict", "lag screw improve": the verb-only word is the verb
    if i + 2 >= len(words):
        return Cut(i, False)  # "drug dose matter?" or "drug change practice?"
    if (
        after2 in DETERMINERS | PREPOSITIONS - {"of"} | COMPARATIVES | NEGATIONS
        or is_adverb(after2)
        or (after2 in PRONOUNS and after2 != "that")
    ):
        return None  # "alcohol use increase the risk"
    return Cut(i, False)


def _plural_noun(word: str) -> bool:
    """A noun in the plural ("measurements", "children"), which rarely modifies the noun after it."""
    import lemminflect  # its lexicons load on the first word read, not with every command

    lemmas = lemminflect.getAllLemmas(word, "NOUN").get("NOUN", ())
    return bool(lemmas) and word not in lemmas and not is_base_verb(word)


def copula_predicate(words: list[str]) -> Cut | None:
    """Where the predicate of "Is/Are/Was/Were X …?" begins: a determiner, an adjective, a
    participle, a negation, "at risk", "more…" after a subject of at least one word."""
    first = _word(words, 0)
    if first in PRONOUNS and first not in ("that", "these", "those", "this") or first == "it":
        return Cut(1, True)  # "Is it safe…"
    for i in range(1, len(words)):
        word, before, after = _word(words, i), _word(words, i - 1), _word(words, i + 1)
        if _is_name(words[i]):
            continue
        if (
            word in DETERMINERS
            and word not in ("all", "each", "every", "such", "no", "both")
            and before not in PREPOSITIONS | CONJUNCTIONS
            and _closes_noun_phrase(before)
        ):
            return Cut(i, True)  # "Is distance to provider | a barrier…"
        if (
            before in DETERMINERS | PREPOSITIONS | CONJUNCTIONS | {"are", "is", "were", "was"}
            or before in RELATIVES
        ):
            continue  # "women who are treated", "the covering of", "with severe …": still the subject
        if word in NEGATIONS:
            return Cut(i, True)
        risky = (
            "risk",
            "increased",
            "higher",
            "greater",
            "lower",
            "high",
            "low",
            "reduced",
            "decreased",
            "elevated",
        )
        if word == "at" and (after in risky or (after in ("a", "an") and _word(words, i + 2) in risky)):
            return Cut(i, True)  # "Are carriers of X | at reduced risk …", "… | at an increased risk …"
        if word == "to" and is_base_verb(after) and _closes_noun_phrase(before):
            return Cut(i, True)  # "Are risk factors | to be blamed…?", "Is X | to blame?"
        if word in PREPOSITIONS | CONJUNCTIONS and word not in COMPARATIVES:
            continue
        if is_adverb(word) and i + 1 < len(words) and (is_adjective(after) or is_participle(after)):
            return Cut(i, True)  # "really increased": the adverb opens the predicate
        if is_participle(word) and (after in PREPOSITIONS | CONJUNCTIONS or not after):
            later = _later_at_risk(words, i)
            return Cut(later, True) if later else Cut(i, True)
        if (is_adjective(word) or (word.endswith("ing") and not is_noun(word))) and _predicative(words, i):
            return Cut(i, True)
    if len(words) > 1:  # "Is X worthwhile?": the last word, sure when it reads as an adjective or participle
        last = _word(words, len(words) - 1)
        return Cut(len(words) - 1, is_adjective(last) or is_participle(last))
    return None


def _predicative(words: list[str], i: int) -> bool:
    """Whether the adjective at ``i`` is said of the subject ("… safe and effective in …") rather
    than of a noun that follows ("… fibrinous and organizing pneumonia …")."""
    if _word(words, i) in COMPARATIVES:
        return True
    j = i + 1
    while (
        j < len(words)
        and _word(words, j) not in PREPOSITIONS
        and (
            _word(words, j) in CONJUNCTIONS
            or is_adverb(_word(words, j))
            or (is_adjective(_word(words, j)) and not is_noun(_word(words, j)))
        )
    ):
        j += 1
    after = _word(words, j)
    if after in DETERMINERS or (after.endswith("ing") and after not in PREPOSITIONS):
        return False  # "Is low serum chloride level | a risk factor?", "delayed gastric emptying"
    return (
        j >= len(words)
        or after in PREPOSITIONS | {"enough", "than", "to", "when", "if", "whether"}
        or not is_noun(after)
    )


def _later_at_risk(words: list[str], i: int) -> int | None:
    """ "Are children exposed to lead at risk …?": the participle belongs to the subject."""
    return next(
        (
            j
            for j in range(i + 2, len(words) - 1)
            if _word(words, j) == "at" and _word(words, j + 1) in ("risk", "increased", "higher", "greater")
        ),
        None,
    )


def perfect_participle(words: list[str]) -> Cut | None:
    """The participle of "Has/Have/Had X increased…?" after a subject of at least one word."""
    if _word(words, 0) in PRONOUNS:
        return Cut(1, True)
    for i in range(1, len(words)):
        word, before = _word(words, i), _word(words, i - 1)
        if word in NEGATIONS and _closes_noun_phrase(before):
            return Cut(i, True)
        if is_adverb(word) and is_participle(_word(words, i + 1)) and _closes_noun_phrase(before):
            return Cut(i, True)
        if (
            not _is_name(words[i])
            and is_participle(word)
            and before not in DETERMINERS | PREPOSITIONS
            and before not in RELATIVES
        ):
            return Cut(i, True)
    return None
