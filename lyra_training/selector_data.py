"""What the evidence selector learns from and is scored on: abstracts cut into sentences, each with a
query (a claim, or "effect of I versus C on O") and the sentences annotated as its evidence.

Sources (docs/selector.md): Evidence Inference v1+v2 at abstract level (the linearized release: each
finding is intervention, outcome, comparator, evidence span, direction), Check-COVID (news claims with
the CORD-19 abstract sentences that support or refute them) and SciFact train claims with their
rationale sentences. A gold sentence is one that holds the annotated span, or most of its words where
the sentence splitter cut it differently. The splits are the datasets' own, by article; ``leaks``
finds any training abstract that shares a 10-word passage with a held-out one, so no article of a
validation or test side is trained on under another id.
"""

from __future__ import annotations

import ast
import csv
import json
import random
import re
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

from lyra_core.sentences import split_sentences
from lyra_training.reranker import RerankerPair

_WORD = re.compile(r"[a-z0-9]+")
_DIRECTION_VERBS = {
    "significantly increased": "increases",
    "significantly decreased": "reduces",
    "no significant difference": "has no effect on",
}
# "ABSTRACT.RESULTS:" / "ABSTRACT.PATIENTS AND METHODS :" section labels inside the text, colon and all;
# then any label left with no colon ("ABSTRACT.EXPANDED")
_SECTION = re.compile(r"ABSTRACT\.[A-Z0-9 .,/&'?()-]*:|ABSTRACT\.[A-Z.]*")
_LABEL = re.compile(r"\[LABEL\](.*?)\[OUT\]")
SHINGLE = 10  # words in a passage that marks two texts as one article


class EvidenceQuery(BaseModel):
    """A query against one abstract, with the indices of its evidence sentences."""

    query: str
    sentences: list[str]
    gold: list[int]
    article: str  # the abstract's id within its source
    source: str
    label: str = ""  # the finding's direction or the claim's verdict, where the source gives one
    intervention: str = ""
    comparator: str = ""
    outcome: str = ""


def _short(text: str, limit: int = 160) -> str:
    """A prompt's part cut at a word near ``limit`` characters (a few name a whole arm's regimen)."""
    text = " ".join(text.split()).strip(" .;,")
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0]


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def shingles(text: str, size: int = SHINGLE) -> set[str]:
    tokens = words(text)
    return {" ".join(tokens[i : i + size]) for i in range(max(len(tokens) - size + 1, 0))}


def gold_sentences(sentences: list[str], span: str) -> list[int]:
    """Sentences that hold the span: verbatim where they can, else each sentence holding at least
    60 % of the span's words (the splitter cut it otherwise, or an annotator's copy differs in a
    word); none where no sentence holds that much (a span that lies elsewhere, or was reworded)."""
    flat = " ".join(span.split())
    if not flat:
        return []
    exact = [i for i, s in enumerate(sentences) if flat in s or (len(s) > 40 and s in flat)]
    if exact:
        return exact
    span_words = set(words(flat))
    if not span_words or not sentences:
        return []
    scored = [(len(span_words & set(words(s))) / len(span_words), i) for i, s in enumerate(sentences)]
    return [i for share, i in scored if share >= 0.6]


def effect_question(intervention: str, comparator: str, outcome: str) -> str:
    return f"effect of {intervention} versus {comparator} on {outcome}"


def finding_claim(intervention: str, comparator: str, outcome: str, label: str) -> str:
    return f"{intervention} {_DIRECTION_VERBS[label]} {outcome} compared with {comparator}."


def read_linearized(path: Path, source: str = "evidence_inference") -> list[EvidenceQuery]:
    """Evidence Inference at abstract level: one query per finding whose span is found in the abstract,
    phrased as the effect it asks about."""
    queries: list[EvidenceQuery] = []
    csv.field_size_limit(1 << 24)
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            text = _SECTION.sub(" ", row["X"].removeprefix("ABSTRACT:")).strip()
            # paragraphs are marked <p>: a sentence never runs across one
            sentences = [s.lstrip(": ") for part in text.split("<p>") for s in split_sentences(part)]
            sentences = [s for s in sentences if s]
            article = f"{path.stem}:{' '.join(words(text)[:12])}"
            for *parts, span, linear in ast.literal_eval(row["Y"]):
                intervention, outcome, comparator = (_short(p) for p in parts)
                label = _LABEL.search(linear)
                label = label.group(1).strip().lower() if label else ""
                gold = gold_sentences(sentences, span)
                if not gold or label not in _DIRECTION_VERBS:
                    continue
                queries.append(
                    EvidenceQuery(
                        query=effect_question(intervention, comparator, outcome),
                        sentences=sentences,
                        gold=gold,
                        article=article,
                        source=source,
                        label=label,
                        intervention=intervention,
                        comparator=comparator,
                        outcome=outcome,
                    )
                )
    return queries


def read_check_covid(folder: Path, split: str, with_nei: bool = False) -> list[EvidenceQuery]:
    """Check-COVID claims that their abstract supports or refutes, with their evidence sentences; with
    ``with_nei`` also those it does not decide, with the sentence that falls short."""
    corpus = {}
    for line in (folder / "corpus.json").read_text(encoding="utf-8").splitlines():
        if line.strip():
            doc = json.loads(line)
            corpus[doc["cord_id"]] = doc
    queries = []
    # test ships its two halves only; train and dev also as one file that repeats them
    files = [folder / split / f"covidCheck_{split}_{part}.json" for part in ("composed", "extracted")]
    lines = [line for path in files for line in path.read_text(encoding="utf-8").splitlines()]
    for line in dict.fromkeys(lines):
        if not line.strip():
            continue
        claim = json.loads(line)
        doc = corpus.get(claim["cord_id"])
        if doc is None or (claim["label"] == "NOTENOUGHINFO" and not with_nei):
            continue
        sentences = [" ".join(s.split()) for s in doc["abstract"]]
        gold = sorted({e["sent_index"] for e in claim["evidence_set"] if e["sent_index"] < len(sentences)})
        if gold:
            queries.append(
                EvidenceQuery(
                    query=" ".join(claim["claim"].split()),
                    sentences=sentences,
                    gold=gold,
                    article=f"check_covid:{claim['cord_id']}",
                    source="check_covid",
                    label=claim["label"],
                )
            )
    return queries


def read_scifact(claims_path: Path, corpus_path: Path, unannotated: bool = False) -> list[EvidenceQuery]:
    """SciFact claims against each paper they cite that holds rationale sentences; with
    ``unannotated``, also against the cited papers that hold none (``gold`` empty, label NEI)."""
    corpus = {}
    with corpus_path.open(encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            corpus[str(doc["doc_id"])] = doc
    queries = []
    with claims_path.open(encoding="utf-8") as fh:
        for line in fh:
            claim = json.loads(line)
            for doc_id, sets in claim.get("evidence", {}).items():
                doc = corpus.get(str(doc_id))
                if doc is None:
                    continue
                gold = sorted({i for s in sets for i in s["sentences"]})
                queries.append(
                    EvidenceQuery(
                        query=claim["claim"],
                        sentences=[" ".join(s.split()) for s in doc["abstract"]],
                        gold=gold,
                        article=f"scifact:{doc_id}",
                        source=f"scifact:{claim['id']}",
                        label=sets[0]["label"],
                    )
                )
            for doc_id in claim.get("cited_doc_ids", []) if unannotated else []:
                doc = corpus.get(str(doc_id))
                if doc is not None and str(doc_id) not in claim.get("evidence", {}):
                    queries.append(
                        EvidenceQuery(
                            query=claim["claim"],
                            sentences=[" ".join(s.split()) for s in doc["abstract"]],
                            gold=[],
                            article=f"scifact:{doc_id}",
                            source=f"scifact:{claim['id']}",
                            label="NEI",
                        )
                    )
    return queries


def leaks(training: Iterable[EvidenceQuery], held_out: Iterable[EvidenceQuery]) -> set[str]:
    """Articles of ``training`` that share a 10-word passage with any article of ``held_out``."""
    seen: set[str] = set()
    for q in held_out:
        seen |= shingles(" ".join(q.sentences))
    return {q.article for q in training if shingles(" ".join(q.sentences)) & seen}


def without_leaks(training: list[EvidenceQuery], *held_out: list[EvidenceQuery]) -> list[EvidenceQuery]:
    leaked: set[str] = set()
    for side in held_out:
        leaked |= leaks(training, side)
    return [q for q in training if q.article not in leaked]


def query_forms(q: EvidenceQuery, rng: random.Random) -> str:
    """A finding's query as the selector meets it at run time: the effect it asks about, or a claim
    about it in either direction (the selector finds the sentence, the label model reads its
    direction, so a claim's direction must not change which sentence is chosen)."""
    if not q.intervention:
        return q.query
    form = rng.random()
    if form < 0.4:
        return q.query
    label = rng.choice(sorted(_DIRECTION_VERBS))
    if form < 0.55:
        return f"{q.intervention} {_DIRECTION_VERBS[label]} {q.outcome}."
    return finding_claim(q.intervention, q.comparator, q.outcome, label)


def selector_pairs(
    queries: list[EvidenceQuery], negatives: int = 5, far_negatives: int = 1, seed: int = 13
) -> list[RerankerPair]:
    """Each gold sentence a positive; ``negatives`` other sentences of the same abstract (the hard
    case: same topic, not the finding) and ``far_negatives`` sentences of other abstracts."""
    rng = random.Random(seed)
    pairs: list[RerankerPair] = []
    for q in queries:
        query = query_forms(q, rng)
        pairs += [RerankerPair(query=query, passage=q.sentences[i], label=1.0) for i in q.gold]
        others = [i for i in range(len(q.sentences)) if i not in q.gold]
        for i in rng.sample(others, min(negatives, len(others))):
            pairs.append(RerankerPair(query=query, passage=q.sentences[i], label=0.0))
        for _ in range(far_negatives):
            other = rng.choice(queries)
            if other.article != q.article and other.sentences:
                pairs.append(RerankerPair(query=query, passage=rng.choice(other.sentences), label=0.0))
    rng.shuffle(pairs)
    return pairs


def read_ei_abstract(path: Path) -> tuple[str, str]:
    """The title and the abstract's text (its section labels dropped) of one Evidence Inference v2
    ``.abst`` file. Where no ``ABSTRACT…`` label follows the title (one abstract in ten), the title is
    the first line after ``TITLE:`` and the abstract the rest."""
    lines = [line.strip() for line in path.read_text(encoding="utf-8", errors="replace").splitlines()]
    labelled = any(line.startswith("ABSTRACT") for line in lines)
    title, body, section = [], [], ""
    for line in lines:
        if line.startswith(("TITLE:", "ABSTRACT")):
            section = "title" if line.startswith("TITLE:") else "abstract"
            line = line.removeprefix("TITLE:").strip() if section == "title" else ""
        if line:
            (title if section == "title" and (labelled or not title) else body).append(line)
    return " ".join(title), " ".join(body)


def read_ei_v2(folder: Path, split: str) -> list[EvidenceQuery]:
    """Evidence Inference v2 prompts of ``split`` against their trial's abstract, one per prompt and
    annotated span; ``gold`` is empty where the span is not in the abstract (it lies in the full
    text, which the abstract-level judge never reads)."""
    from lyra_training.direction_data import read_findings

    texts: dict[str, list[str]] = {}
    queries = []
    for f in read_findings(folder, split):
        path = folder / "abstracts" / f"PMC{f.article}.abst"
        if f.article not in texts:
            texts[f.article] = split_sentences(read_ei_abstract(path)[1]) if path.exists() else []
        sentences = texts[f.article]
        if not sentences:
            continue
        flat = " ".join(words(f.span))
        in_text = flat in " ".join(words(" ".join(sentences)))
        queries.append(
            EvidenceQuery(
                query=effect_question(f.intervention, f.comparator, f.outcome),
                sentences=sentences,
                gold=gold_sentences(sentences, f.span) if in_text else [],
                article=f"ev2:{f.article}",
                source=f"ev2:{f.prompt}",
                label=f.label,
                intervention=f.intervention,
                comparator=f.comparator,
                outcome=f.outcome,
            )
        )
    return queries
