"""Scholarly identifiers: find, normalise and compare DOIs, PMIDs, arXiv ids and titles.

Every source spells identifiers its own way (``https://doi.org/10.1/X``, ``DOI:10.1/x``,
``PMID: 123``, ``arXiv:1706.03762v5``); canonical papers are merged on the normalised forms.
"""

from __future__ import annotations

import re
import unicodedata

# Crossref's recommended pattern, widened to the characters seen in real DOIs.
_DOI_RE = re.compile(r"\b(10\.\d{4,9}/[^\s\"'<>]+)", re.IGNORECASE)
_DOI_TRAILING = ".,;:)]}>"
_PMID_RE = re.compile(r"\bPMID:?\s*(\d{1,9})\b", re.IGNORECASE)
# New-style (1706.03762, optional version) and old-style (hep-th/9901001) arXiv ids.
_ARXIV_NEW = r"\d{4}\.\d{4,5}(?:v\d+)?"
_ARXIV_OLD = r"[a-z\-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?"
_ARXIV_RE = re.compile(
    rf"(?:arxiv(?:\.org/(?:abs|pdf)/|:\s*)|ARXIV:)({_ARXIV_NEW}|{_ARXIV_OLD})", re.IGNORECASE
)
_ARXIV_BARE_RE = re.compile(rf"^(?:{_ARXIV_NEW}|{_ARXIV_OLD})$", re.IGNORECASE)


def normalize_doi(value: str | None) -> str | None:
    """Lower-cased bare DOI (``10.xxxx/...``) or None when ``value`` holds none."""
    if not value:
        return None
    text = value.strip()
    text = re.sub(r"^(?:https?://)?(?:dx\.)?doi\.org/", "", text, flags=re.IGNORECASE)
    text = re.sub(r"^doi:\s*", "", text, flags=re.IGNORECASE)
    match = _DOI_RE.search(text)
    if not match:
        return None
    return _strip_trailing(match.group(1)).lower()


def _strip_trailing(doi: str) -> str:
    """Drop sentence punctuation after a DOI, but keep a closing bracket the DOI itself opened
    (``10.1061/(ASCE)1090-0241(2003)129:11(1054)``)."""
    while doi and doi[-1] in _DOI_TRAILING:
        closing = doi[-1]
        opening = {")": "(", "]": "[", "}": "{", ">": "<"}.get(closing)
        if opening and doi.count(opening) >= doi.count(closing):
            break
        doi = doi[:-1]
    return doi


def normalize_pmid(value: str | int | None) -> str | None:
    """Bare PubMed id without leading zeros, or None."""
    if value is None:
        return None
    text = str(value).strip()
    text = re.sub(r"^(?:https?://)?(?:pubmed\.ncbi\.nlm\.nih\.gov/|www\.ncbi\.nlm\.nih\.gov/pubmed/)", "", text)
    text = re.sub(r"^pmid:?\s*", "", text, flags=re.IGNORECASE).strip("/ ")
    if not text.isdigit():
        return None
    pmid = text.lstrip("0")
    return pmid or None


def normalize_arxiv_id(value: str | None) -> str | None:
    """arXiv id without prefix or version (``1706.03762``), or None."""
    if not value:
        return None
    text = value.strip()
    match = _ARXIV_RE.search(text)
    candidate = match.group(1) if match else text
    if not _ARXIV_BARE_RE.match(candidate):
        return None
    return re.sub(r"v\d+$", "", candidate).lower()


def normalize_title(title: str | None) -> str:
    """Title key for matching: accents folded, lower case, punctuation and spacing removed."""
    if not title:
        return ""
    text = unicodedata.normalize("NFKD", title)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"<[^>]+>", " ", text)  # stray markup such as <i>
    text = re.sub(r"[^0-9a-z]+", " ", text.lower())
    return " ".join(text.split())


def find_dois(text: str) -> list[str]:
    """Every distinct DOI in free text, normalised, in order of appearance."""
    seen: dict[str, None] = {}
    for match in _DOI_RE.finditer(text or ""):
        doi = normalize_doi(match.group(1))
        if doi:
            seen.setdefault(doi, None)
    return list(seen)


def find_pmids(text: str) -> list[str]:
    """Every distinct ``PMID: n`` mention in free text."""
    seen: dict[str, None] = {}
    for match in _PMID_RE.finditer(text or ""):
        pmid = normalize_pmid(match.group(1))
        if pmid:
            seen.setdefault(pmid, None)
    return list(seen)


def find_arxiv_ids(text: str) -> list[str]:
    """Every distinct ``arXiv:…`` or arxiv.org link id in free text."""
    seen: dict[str, None] = {}
    for match in _ARXIV_RE.finditer(text or ""):
        arxiv = normalize_arxiv_id(match.group(1))
        if arxiv:
            seen.setdefault(arxiv, None)
    return list(seen)
