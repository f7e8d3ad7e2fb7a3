"""Identifiers, citation metadata and main text of real article pages (shared/data/landing_pages),
checked against papis's gold metadata (``*_Out.json``), plus the pure loop helpers."""

import functools
import json
import re
from pathlib import Path

import pytest

from lyra_core.browsing import browser_mode, new_identifiers
from lyra_core.identifiers import Identifiers, normalize_title
from lyra_core.identifiers import normalize_doi as clean_doi
from lyra_core.page_extraction import extract_page

PAPIS_FIELDS = ("journal", "volume", "issue", "firstpage", "lastpage", "issn", "pdf_url")


def papis_pages(shared_data: Path) -> list[tuple[str, str, dict]]:
    folder = shared_data / "landing_pages" / "papis"
    return [
        (p.stem, p.read_text(errors="replace"), json.loads(p.with_name(f"{p.stem}_Out.json").read_text()))
        for p in sorted(folder.glob("*.html"))
    ]


@functools.cache
def extracted(html: str, url: str | None = None):
    """extract_page, once per page for the whole module (trafilatura takes ~0.1 s a page)."""
    return extract_page(html, url)


def has_citation_doi(html: str) -> bool:
    return re.search(r"<meta[^>]*name=\"?citation_doi", html, re.IGNORECASE) is not None


def test_page_doi_agrees_with_papis_gold_on_every_page_with_citation_doi(shared_data):
    pages = papis_pages(shared_data)
    assert len(pages) == 18
    with_meta = [(name, html, gold) for name, html, gold in pages if has_citation_doi(html)]
    assert len(with_meta) == 16
    agreed = [
        name
        for name, html, gold in with_meta
        if extracted(html, gold.get("url")).metadata.doi == clean_doi(gold["doi"])
    ]
    assert agreed == [name for name, _, _ in with_meta]  # 16 of 16
    # Project Euclid puts only the suffix in citation_doi; the Dublin Core DOI completes it.
    euclid = next(html for name, html, _ in pages if name == "ProjectEuclid_1391109086")
    assert 'name="citation_doi" content="ade/1391109086"' in euclid
    assert extract_page(euclid).metadata.doi == "10.57262/ade/1391109086"


def test_every_gold_doi_is_among_the_identifiers_found(shared_data):
    for name, html, gold in papis_pages(shared_data):
        page = extracted(html, gold.get("url"))
        if gold.get("doi"):
            assert clean_doi(gold["doi"]) in page.identifiers.dois, name
        if page.metadata.doi:
            assert page.identifiers.dois[0] == page.metadata.doi, name  # the page's own DOI comes first


def test_a_doi_only_linked_from_a_badge_is_not_the_page_doi(shared_data):
    """papis's fallback takes HAL's thesis DOI from a link in the footer (the repository's
    CoreTrustSeal badge); it is kept among the linked identifiers, not made the page's own."""
    _, html, gold = next(p for p in papis_pages(shared_data) if p[0] == "HAL_THESES_tel_02083632v1")
    page = extracted(html, gold["url"])
    assert page.metadata.doi is None
    assert gold["doi"].lower() in page.identifiers.dois
    kobv = next(p for p in papis_pages(shared_data) if p[0] == "Fallback_kobv")
    assert extract_page(kobv[1]).metadata.doi is None and "doi" not in kobv[2]


def test_citation_metadata_agrees_with_papis_gold(shared_data):
    compared = {field: 0 for field in PAPIS_FIELDS}
    for name, html, gold in papis_pages(shared_data):
        meta = extracted(html, gold.get("url")).metadata
        assert normalize_title(meta.title) == normalize_title(gold["title"]), name
        for field in PAPIS_FIELDS:
            if gold.get(field):
                assert getattr(meta, field) == str(gold[field]), (name, field)
                compared[field] += 1
    assert compared == {
        "journal": 13,
        "volume": 13,
        "issue": 10,
        "firstpage": 14,
        "lastpage": 8,
        "issn": 10,
        "pdf_url": 13,
    }


def test_main_text_holds_the_abstract(shared_data):
    """trafilatura misses the abstract block of APS, HAL and ScienceDirect pages; the citation
    abstract is then put in front, so every gold abstract is in the text."""

    def norm(s):
        return " ".join(s.split()).lower()

    with_abstract = 0
    for name, html, gold in papis_pages(shared_data):
        page = extracted(html, gold.get("url"))
        assert page.text and page.extractor == "trafilatura", name
        if gold.get("abstract"):
            with_abstract += 1
            assert norm(gold["abstract"])[:60] in norm(page.text), name
    assert with_abstract == 17


def test_arxiv_abstract_page(shared_data):
    page = extract_page(
        (shared_data / "landing_pages/commonmeta/test_arxiv__00.html").read_text(),
        "https://arxiv.org/abs/1902.02534",
    )
    assert page.metadata.arxiv_id == "1902.02534"
    assert page.identifiers.arxiv_ids[0] == "1902.02534"
    assert "10.48550/arxiv.1902.02534" in page.identifiers.dois  # arXiv's own DOI, linked on the page
    assert page.title.startswith("Crowdsourcing open citations with CROCI")
    assert "OpenCitations" in page.text


def test_pubmed_page_with_the_doi_in_its_text(shared_data):
    page = extract_page(
        (shared_data / "landing_pages/readability_pubmed/pubmed.html").read_text(),
        "https://www.ncbi.nlm.nih.gov/pubmed/22188593",
    )
    assert page.metadata.doi is None  # no citation metas on the old PubMed page
    assert page.identifiers.dois[0] == "10.2165/11597620-000000000-00000"
    assert page.identifiers.pmids[0] == "22188593"
    assert "losartan" in page.text.lower()


def test_oup_article_page(shared_data):
    html = (shared_data / "landing_pages/newspaper_2020/Oxford_University_Press.html").read_text()
    page = extract_page(html, "https://academic.oup.com/jrs/article-abstract/24/1/23/1595471")
    assert page.metadata.doi == "10.1093/jrs/feq048"
    assert page.metadata.journal == "Journal of Refugee Studies"
    assert "refugee camp" in page.text.lower()


def test_empty_and_odd_html_does_not_break_extraction():
    for html in (
        "",
        "   ",
        "<p>no html element</p>",
        "<?xml version='1.0' encoding='utf-8'?><html><body>x</body></html>",
    ):
        page = extract_page(html)
        assert page.identifiers == Identifiers()


@pytest.mark.parametrize(
    "raw, doi",
    [
        ("10.1061/(ASCE)1090-0241(2003)129:11(1054)", "10.1061/(asce)1090-0241(2003)129:11(1054)"),
        ("(see 10.1000/xyz123)", "10.1000/xyz123"),
        ("doi:10.1016/S0009-2614(97)04014-1.", "10.1016/s0009-2614(97)04014-1"),
        ("https://doi.org/10.7717/peerj.4886", "10.7717/peerj.4886"),
        ("ade/1391109086", None),
    ],
)
def test_clean_doi_keeps_parentheses_that_belong_to_the_doi(raw, doi):
    assert clean_doi(raw) == doi


# -- the identifier loop (Phase 6 → Phase 3) -------------------------------------------------------

PAGE_A = Identifiers(dois=("10.1/a", "10.1/shared"), pmids=("1",))
PAGE_B = Identifiers(dois=("10.1/shared", "10.1/b"), arxiv_ids=("1706.03762",))


def test_new_identifiers_skips_known_ones_and_keeps_finding_order():
    known = Identifiers(dois=("10.1/a",))
    fresh = new_identifiers([PAGE_A, PAGE_B], known, depth=0, max_depth=1)
    assert fresh == Identifiers(dois=("10.1/shared", "10.1/b"), pmids=("1",), arxiv_ids=("1706.03762",))


def test_new_identifiers_stops_at_the_depth_limit():
    assert new_identifiers([PAGE_A], Identifiers(), depth=1, max_depth=1).is_empty()
    assert new_identifiers([PAGE_A], Identifiers(), depth=0, max_depth=0).is_empty()
    assert not new_identifiers([PAGE_A], Identifiers(), depth=1, max_depth=2).is_empty()
    with pytest.raises(ValueError):
        new_identifiers([PAGE_A], Identifiers(), depth=-1, max_depth=1)


def test_new_identifiers_caps_each_page_and_the_batch():
    many = Identifiers(dois=tuple(f"10.1/{i}" for i in range(50)))
    capped = new_identifiers([many, PAGE_B], Identifiers(), depth=0, max_depth=1, per_page=3)
    assert capped.dois == ("10.1/0", "10.1/1", "10.1/2", "10.1/shared", "10.1/b")
    assert capped.arxiv_ids == ("1706.03762",)  # PAGE_B's repeat of a batched DOI uses none of its cap
    assert new_identifiers([many, PAGE_B], Identifiers(), depth=0, max_depth=1, per_page=1).dois == (
        "10.1/0",
        "10.1/shared",
    )
    assert new_identifiers([many], Identifiers(), depth=0, max_depth=1, limit=4).total == 4


@pytest.mark.parametrize(
    "setting, live, corpus, expected",
    [
        ("off", "on", False, False),
        ("on", "off", True, True),
        ("auto", "auto", True, False),
        ("auto", "on", True, False),
        ("auto", "off", False, False),
        ("auto", "auto", False, True),
    ],
)
def test_browser_mode(setting, live, corpus, expected):
    enabled, reason = browser_mode(setting, live, has_local_corpus=corpus)
    assert enabled is expected and reason
