"""Search result parsers and link helpers against real result pages (shared/data/serp)."""

import base64
import re
from urllib.parse import quote, urlsplit

import pytest
import yaml

from lyra_core.identifiers import Identifiers, identifiers_in_text, identifiers_in_url
from lyra_core.page_extraction import link_identifiers, parse_html
from lyra_core.urls import unwrap_redirect
from lyra_resources.web.search_engines import (
    DEFAULT_BASE_URLS,
    engine,
    looks_like_challenge,
    parse_bing,
    parse_duckduckgo,
    parse_google,
    parse_google_scholar,
)


def page(shared_data, name: str) -> str:
    return (shared_data / "serp" / name).read_text(errors="replace")


def assert_well_formed(results, engine_name):
    assert [r.rank for r in results] == list(range(1, len(results) + 1))
    assert len({r.url for r in results}) == len(results)
    for r in results:
        assert r.engine == engine_name
        assert r.url.startswith(("http://", "https://")), r.url
        assert r.title and r.domain and not r.domain.startswith("www.")
        # click-tracking wrappers are gone
        assert "/url?q=" not in r.url and "duckduckgo.com/l/" not in r.url and "bing.com/ck/" not in r.url


def test_duckduckgo_html_page(shared_data):
    html = page(shared_data, "html/sep_duckduckgo-Hello_1.html")
    results = parse_duckduckgo(html)
    assert len(results) == html.count('class="result__a"') == 28
    assert_well_formed(results, "duckduckgo")
    first = results[0]
    assert first.url == "https://www.merriam-webster.com/dictionary/hello"
    assert first.title == "Hello | Definition of Hello by Merriam-Webster"
    assert first.snippet.startswith("Hello definition is - an expression or gesture of greeting")
    assert first.domain == "merriam-webster.com"
    assert results[3].url == "https://en.wikipedia.org/wiki/Hello"
    assert not looks_like_challenge(html)


def test_duckduckgo_redirect_links_are_unwrapped(shared_data):
    """Today's html.duckduckgo.com wraps every result in //duckduckgo.com/l/?uddg=…; the recorded
    page has direct links, so the same page is rewritten into the wrapped form."""
    html = page(shared_data, "html/sep_duckduckgo-Hello_1.html")
    direct = [r.url for r in parse_duckduckgo(html)]
    wrapped = re.sub(
        r'href="(https?://[^"]+)"',
        lambda m: f'href="//duckduckgo.com/l/?uddg={quote(m.group(1), safe="")}&amp;rut=0a1b2c"',
        html,
    )
    assert "uddg=" in wrapped
    assert [r.url for r in parse_duckduckgo(wrapped)] == direct


def test_duckduckgo_base_url_is_where_the_recorded_302_leads(shared_data):
    cassette = yaml.safe_load(
        page(shared_data, "search_engine_parser_cassettes/duckduckgo-Hello-synopsis.yaml")
    )
    first = cassette["interactions"][0]["response"]
    assert first["status"]["code"] == 302
    location = first["headers"]["Location"]
    location = urlsplit(location[0] if isinstance(location, list) else location)
    ours = urlsplit(engine("duckduckgo").query_url("Hello"))
    assert (ours.scheme, ours.netloc, ours.path) == (location.scheme, location.netloc, location.path)
    assert ours.query == "q=Hello"


def test_google_scholar_page(shared_data):
    html = page(shared_data, "html/sep_googlescholar-Hello_0.html")
    results = parse_google_scholar(html)
    # ten entries, one a [CITATION] without any link
    assert len(results) == 9
    assert_well_formed(results, "google_scholar")
    first = results[0]
    assert first.title == "Goodbye, hazen; hello, kozeny-carman"
    assert first.snippet.startswith("WD Carrier III - Journal of geotechnical")
    # a DOI with parentheses, its closing one included
    assert first.identifiers.dois == ("10.1061/(asce)1090-0241(2003)129:11(1054)",)
    dois = {d for r in results for d in r.identifiers.dois}
    assert "10.1515/9780822385639" in dois and len(dois) == 4


def test_google_scholar_2010_markup(shared_data):
    results = parse_google_scholar(page(shared_data, "pyscholar_2010/google_scholar_q_PDMS.html"))
    assert len(results) == 9  # ten headings, the first a [CITATION] without a link
    assert results[0].url == "http://ieeexplore.ieee.org/xpls/abs_all.jsp?arnumber=825780"
    assert results[0].title.startswith("Three-dimensional micro-channel fabrication")


def test_bing_page(shared_data):
    html = page(shared_data, "html/sep_bing-Hello_0.html")
    results = parse_bing(html)
    assert len(results) == 9
    assert_well_formed(results, "bing")
    assert results[0].url == "https://www.hellomagazine.com/"
    assert results[0].snippet.startswith("HELLO! brings you the latest celebrity")


def test_bing_click_links_are_unwrapped():
    target = "https://pubmed.ncbi.nlm.nih.gov/22188593/"
    encoded = "a1" + base64.urlsafe_b64encode(target.encode()).decode().rstrip("=")
    html = (
        f'<ol><li class="b_algo"><h2><a href="https://www.bing.com/ck/a?!&amp;&amp;p=abc&amp;u={encoded}'
        f'&amp;ntb=1">Losartan</a></h2><div class="b_caption"><p>PMID: 22188593</p></div></li></ol>'
    )
    [result] = parse_bing(html)
    assert result.url == target
    assert result.identifiers.pmids == ("22188593",)


@pytest.mark.parametrize(
    "name, count", [("html/sep_google-Hello_0.html", 8), ("html/sep_google-test-diff_0.html", 9)]
)
def test_google_basic_html_pages(shared_data, name, count):
    html = page(shared_data, name)
    results = parse_google(html)
    assert len(results) == count
    assert_well_formed(results, "google")
    assert all(r.snippet for r in results)


def test_google_url_redirect_is_unwrapped(shared_data):
    html = page(shared_data, "html/sep_google-Hello_0.html")
    href = re.search(r'href="(/url\?q=[^"]+)"', html).group(1).replace("&amp;", "&")
    assert unwrap_redirect(href, DEFAULT_BASE_URLS["google"]) == "https://www.youtube.com/watch?v=YQHsXMglC9A"


def test_unwrap_redirect_refuses_what_cannot_be_fetched():
    assert unwrap_redirect("javascript:void(0)") is None
    assert unwrap_redirect("#top") is None
    assert unwrap_redirect("//duckduckgo.com/l/?uddg=file%3A%2F%2F%2Fetc%2Fpasswd") is None
    assert (
        unwrap_redirect("/scholar?cites=1", "https://scholar.google.com/scholar")
        == "https://scholar.google.com/scholar?cites=1"
    )


def test_challenge_pages_are_recognised():
    assert looks_like_challenge("<html><body><div id='gs_captcha_ccl'>Please show you're not a robot</div>")
    assert looks_like_challenge(
        "<html><body>Our systems have detected unusual traffic from your network</body>"
    )
    assert parse_google_scholar("<html><body><div id='gs_captcha_ccl'></div></body></html>") == []


@pytest.mark.parametrize(
    "url, expected",
    [
        (
            "https://link.springer.com/content/pdf/10.1007/BF02727953.pdf",
            Identifiers(dois=("10.1007/bf02727953",)),
        ),
        (
            "https://onlinelibrary.wiley.com/doi/full/10.1111/j.1600-051X.2011.01828.x",
            Identifiers(dois=("10.1111/j.1600-051x.2011.01828.x",)),
        ),
        (
            "https://doi.org/10.1016/S0009-2614(97)04014-1",
            Identifiers(dois=("10.1016/s0009-2614(97)04014-1",)),
        ),
        (
            "https://iopscience.iop.org/article/10.1088/0026-1394/12/4/002/pdf",
            Identifiers(dois=("10.1088/0026-1394/12/4/002",)),
        ),
        ("https://example.org/resolve?doi=10.7717%2Fpeerj.4886", Identifiers(dois=("10.7717/peerj.4886",))),
        ("https://pubmed.ncbi.nlm.nih.gov/22188593/", Identifiers(pmids=("22188593",))),
        ("https://www.ncbi.nlm.nih.gov/pubmed/22188593", Identifiers(pmids=("22188593",))),
        ("https://europepmc.org/article/MED/22188593", Identifiers(pmids=("22188593",))),
        ("https://arxiv.org/pdf/1706.03762v5.pdf", Identifiers(arxiv_ids=("1706.03762",))),
        ("https://arxiv.org/abs/hep-th/9901001", Identifiers(arxiv_ids=("hep-th/9901001",))),
        ("https://www.merriam-webster.com/dictionary/hello", Identifiers()),
    ],
)
def test_identifiers_in_urls(url, expected):
    assert identifiers_in_url(url) == expected


def test_identifiers_on_real_publisher_result_pages(shared_data):
    plos = parse_html(page(shared_data, "pyscholar_2010/plosone-results.html"))
    assert "10.1371/journal.pone.0005240" in link_identifiers(plos, "http://www.plosone.org/search").dois
    nature = parse_html(page(shared_data, "pyscholar_2010/nature-search-results.html"))
    assert len(link_identifiers(nature, "http://www.nature.com/search").dois) == 24
    pmc = parse_html(page(shared_data, "pyscholar_2010/pubmedcentral-results.html"))
    dois = identifiers_in_text(" ".join(pmc.itertext())).dois
    assert "10.1113/jphysiol.2006.110320" in dois  # "doi: 10.1113/jphysiol.2006.110320." — the period dropped


def test_unknown_engine_is_a_clear_error():
    with pytest.raises(ValueError, match="known engines: bing, duckduckgo, google, google_scholar"):
        engine("altavista")
