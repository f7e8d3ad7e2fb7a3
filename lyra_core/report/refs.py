"""The report's numbered reference list: each source cited once, numbered in order of first citation.

A source is a paper (authors, year, title, venue, DOI) or a web page that is no paper (title and
URL). Numbers are handed out as the report cites sources, so the reference list, the ``[n]``
citations beside the sentences and the numbers in the evidence graph always agree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel

from lyra_core.urls import local_host_refusal, url_refusal

UNTITLED = "untitled source"  # what prose calls a source with no title: never Lyra's internal id
AUTHORS_SHOWN = 3  # then "et al.", as most journals cite
DOI_PREFIXES = ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:")
# An URL that may become a link starts with the scheme itself: no space or control character before
# it, or anywhere in it (browsers drop them, so ' java\tscript:' would still run script).
_WEB_URL = re.compile(r"https?://[^\x00-\x20\x7f]+", re.IGNORECASE)
# RFC 3986's reserved and unreserved characters and '%'; everything else (quotes, <, >, backslash,
# backtick, spaces, non-ASCII) is percent-encoded, so it can end neither an attribute nor a Markdown link.
_URL_SAFE = ":/?#[]@!$&()*+,;=%~-._"


def linkable(url: str | None) -> str | None:
    """``url`` as a link target when it is an http(s) URL with a host, percent-encoded where it held
    characters that could end the link; None for anything else (javascript:, data:, vbscript:, a
    leading space or control character, no host) and for a URL naming this machine or a private
    network (``local_host_refusal``: userinfo, localhost, a loopback or private IP), which a report
    shows as text, never as a link."""
    if not url or not _WEB_URL.fullmatch(url) or url_refusal(url) or local_host_refusal(url):
        return None
    return quote(url, safe=_URL_SAFE)


def doi_link(doi: str | None) -> str | None:
    """A DOI as a resolvable https://doi.org/ link (DOIs may hold characters a URL must escape)."""
    if not doi or not doi.strip():
        return None
    doi = doi.strip()
    for prefix in DOI_PREFIXES:
        if doi.lower().startswith(prefix):
            doi = doi[len(prefix) :]
    return "https://doi.org/" + quote(doi, safe="/:;()._-")


def identifier(
    source_id: str, doi: str | None = None, pmid: str | None = None, url: str | None = None
) -> tuple[str, str | None]:
    """How a passage names its paper, and the link that opens it: ``doi:…`` (doi.org), ``PMID …``
    (PubMed), else its URL when that is an http(s) URL, else Lyra's id of the source, unlinked."""
    if doi and doi.strip():
        return f"doi:{doi.strip()}", doi_link(doi)
    if pmid and str(pmid).strip():
        pmid = str(pmid).strip()
        return f"PMID {pmid}", f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid.isdigit() else None
    link = linkable(url)
    return (link, link) if link else (source_id, None)


class Reference(BaseModel):
    """One numbered source of the report."""

    number: int
    source_id: str  # the paper id, or the page id of a page that is no paper
    is_paper: bool
    title: str
    authors: list[str] = []
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    pmid: str | None = None
    url: str | None = None

    @property
    def doi_url(self) -> str | None:
        """The DOI as a resolvable https://doi.org/ link (DOIs may hold characters a URL must escape)."""
        return doi_link(self.doi)

    @property
    def identifier(self) -> tuple[str, str | None]:
        """The paper's DOI, PMID, URL or id as a passage names it, and its link (``identifier``)."""
        return identifier(self.source_id, self.doi, self.pmid, self.url)

    @property
    def web_url(self) -> str | None:
        """The source's URL as a link target, None when it is no http(s) URL (see ``linkable``)."""
        return linkable(self.url)

    @property
    def link(self) -> str | None:
        """Where a reader opens the source: its DOI link for a paper that has one, else its URL
        when that is an http(s) URL; None otherwise."""
        return self.doi_url or self.web_url

    @property
    def author_text(self) -> str:
        """Up to three authors as stored ("Family, Given"), then "et al."; empty when none are known."""
        if not self.authors:
            return ""
        shown = "; ".join(self.authors[:AUTHORS_SHOWN])
        return shown + ("; et al." if len(self.authors) > AUTHORS_SHOWN else "")

    @property
    def short(self) -> str:
        """A few words for a label: first author's family name and year, then the title."""
        family = self.authors[0].split(",")[0].strip() if self.authors else ""
        if not family:
            return self.title
        who = f"{family}{' et al.' if len(self.authors) > 1 else ''}"
        return f"{who} {self.year} — {self.title}" if self.year else f"{who} — {self.title}"

    def text(self) -> str:
        """The reference as one line of plain text, no link (Vancouver order): Authors. Title. Venue; year."""
        parts = [self.author_text.rstrip(".") + "." if self.author_text else "", self.title.rstrip(".") + "."]
        when = str(self.year) if self.year else ""
        if self.venue:
            parts.append(f"{self.venue.rstrip('.')}" + (f"; {when}." if when else "."))
        elif when:
            parts.append(when + ".")
        if not self.is_paper:
            parts.append("Web page.")
        return " ".join(p for p in parts if p)


class References:
    """Numbers sources in order of first citation; ``cite`` returns a source's number."""

    def __init__(self, rows: Mapping[str, Mapping[str, Any]], fallback: Mapping[str, Mapping[str, Any]]):
        """``rows``: bibliographic fields by source id (see answer_view.source_rows); ``fallback``:
        the page's title and URL by source id, for a source the papers table does not hold."""
        self._rows, self._fallback = rows, fallback
        self._numbers: dict[str, int] = {}
        self.items: list[Reference] = []

    def cite(self, source_id: str) -> int:
        if source_id not in self._numbers:
            self._numbers[source_id] = len(self.items) + 1
            self.items.append(self._reference(source_id, self._numbers[source_id]))
        return self._numbers[source_id]

    def number(self, source_id: str) -> int | None:
        return self._numbers.get(source_id)

    def _reference(self, source_id: str, number: int) -> Reference:
        row = self._rows.get(source_id) or {}
        page = self._fallback.get(source_id) or {}
        url = row.get("url") or page.get("url")
        title = (row.get("title") or page.get("title") or url or UNTITLED).strip()
        year = row.get("year")
        return Reference(
            number=number,
            source_id=source_id,
            is_paper=bool(row.get("is_paper")),
            title=" ".join(title.split()),
            authors=list(row.get("authors") or []),
            year=int(year) if year else None,
            venue=row.get("venue") or None,
            doi=row.get("doi") or None,
            pmid=str(row["pmid"]) if row.get("pmid") else None,
            url=url,
        )

    def reference(self, source_id: str) -> Reference:
        """The reference of ``source_id``, cited (numbered) here if it was not yet."""
        return self.items[self.cite(source_id) - 1]
