"""Scholarly identifiers: find, normalise and compare DOIs, PMIDs, arXiv ids and titles, and
``Identifiers``, the set of them a text or a link names.

Every source spells identifiers its own way (``https://doi.org/10.1/X``, ``DOI:10.1/x``,
``PMID: 123``, ``arXiv:1706.03762v5``); canonical papers are merged on the normalised forms.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from urllib.parse import parse_qs, unquote, urlsplit

from pydantic import BaseModel, ConfigDict

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
    text = re.sub(
        r"^(?:https?://)?(?:pubmed\.ncbi\.nlm\.nih\.gov/|www\.ncbi\.nlm\.nih\.gov/pubmed/)", "", text
    )
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


# -- identifiers found in text and links -----------------------------------------------------------

_DOI_CANDIDATE = re.compile(r"10\.\d{4,9}/[^\s\"'<>]+", re.IGNORECASE)
# Path tails that publishers append to a DOI in their URLs; never part of the DOI itself.
_URL_DOI_TAILS = re.compile(
    r"(?:\.pdf|/(?:abstract|abs|full|fulltext|pdf|epdf|pdfdirect|html|summary|references|figures|"
    r"tables|meta|citation|bibtex|suppl|supplemental|metrics|info|issuetoc|toc))+/?$",
    re.IGNORECASE,
)


def _unique(values: Iterable[str | None]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if v))


class Identifiers(BaseModel):
    """DOIs, PMIDs and arXiv ids, normalised, distinct, in the order they were found."""

    model_config = ConfigDict(frozen=True)
    dois: tuple[str, ...] = ()
    pmids: tuple[str, ...] = ()
    arxiv_ids: tuple[str, ...] = ()

    def merged(self, *others: Identifiers) -> Identifiers:
        everything = (self, *others)
        return Identifiers(
            dois=_unique(d for i in everything for d in i.dois),
            pmids=_unique(p for i in everything for p in i.pmids),
            arxiv_ids=_unique(a for i in everything for a in i.arxiv_ids),
        )

    def without(self, known: Identifiers) -> Identifiers:
        return Identifiers(
            dois=tuple(d for d in self.dois if d not in set(known.dois)),
            pmids=tuple(p for p in self.pmids if p not in set(known.pmids)),
            arxiv_ids=tuple(a for a in self.arxiv_ids if a not in set(known.arxiv_ids)),
        )

    def first(self, limit: int) -> Identifiers:
        """At most ``limit`` identifiers in all: the order of finding decides, DOIs first."""
        dois = self.dois[:limit]
        pmids = self.pmids[: max(limit - len(dois), 0)]
        arxiv_ids = self.arxiv_ids[: max(limit - len(dois) - len(pmids), 0)]
        return Identifiers(dois=dois, pmids=pmids, arxiv_ids=arxiv_ids)

    @property
    def total(self) -> int:
        return len(self.dois) + len(self.pmids) + len(self.arxiv_ids)

    def is_empty(self) -> bool:
        return self.total == 0

    @classmethod
    def of(
        cls,
        dois: Iterable[str | None] = (),
        pmids: Iterable[str | None] = (),
        arxiv_ids: Iterable[str | None] = (),
    ) -> Identifiers:
        """From raw values in any spelling; values that do not parse are dropped."""
        return cls(
            dois=_unique(normalize_doi(d) for d in dois if d),
            pmids=_unique(normalize_pmid(p) for p in pmids if p),
            arxiv_ids=_unique(normalize_arxiv_id(a) for a in arxiv_ids if a),
        )


def identifiers_in_text(text: str | None) -> Identifiers:
    text = text or ""
    return Identifiers(
        dois=tuple(find_dois(text)), pmids=tuple(find_pmids(text)), arxiv_ids=tuple(find_arxiv_ids(text))
    )


_PUBMED_PATH = re.compile(r"^/(?:pubmed/)?(\d{1,9})/?$")
_EUROPEPMC_PATH = re.compile(r"/(?:abstract|article)/MED/(\d{1,9})", re.IGNORECASE)
_ARXIV_PATH = re.compile(r"^/(?:abs|pdf|html)/(.+?)(?:\.pdf)?/?$", re.IGNORECASE)


def identifiers_in_url(url: str | None) -> Identifiers:
    """Identifiers a link names: a DOI in its path or query (``/doi/10.1/x``, ``doi.org/10.1/x``,
    ``?doi=10.1/x``), a PubMed or Europe PMC id, an arXiv abs/pdf id."""
    if not url:
        return Identifiers()
    try:
        parts = urlsplit(url)
    except ValueError:
        return Identifiers()
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = unquote(parts.path)
    dois: list[str] = []
    for piece in [path, *(unquote(v) for vs in parse_qs(parts.query).values() for v in vs)]:
        for match in _DOI_CANDIDATE.finditer(piece):
            candidate = _URL_DOI_TAILS.sub("", match.group(0))
            if doi := normalize_doi(candidate):
                dois.append(doi)
    pmids: list[str] = []
    if (
        host in ("pubmed.ncbi.nlm.nih.gov", "ncbi.nlm.nih.gov")
        and (m := _PUBMED_PATH.match(path))
        or host.endswith("europepmc.org")
        and (m := _EUROPEPMC_PATH.search(path))
    ):
        pmids.append(m.group(1))
    arxiv_ids: list[str] = []
    if host in ("arxiv.org", "export.arxiv.org") and (m := _ARXIV_PATH.match(path)):
        arxiv_ids.append(m.group(1))
    return Identifiers.of(dois, pmids, arxiv_ids)
