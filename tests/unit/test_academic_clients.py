"""The S2 and OpenAlex clients replaying recorded real responses (../shared/data/api_responses)
through ``httpx.MockTransport``: parsing, inverted-index abstracts, paging, batches, references
and citations with isInfluential, and the 400/403/404 answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

import httpx
import pytest

from lyra_core.papers import CanonicalPaper, canonicalize
from lyra_resources.corpus.json_files import rebuild_abstract
from lyra_resources.sources.academic import (
    ApiClient,
    ApiStatusError,
    HttpPolicy,
    MalformedResponse,
    OpenAlexClient,
    SemanticScholarClient,
)
from lyra_resources.sources.academic.gather import complete_identifiers

S2_BASE = "https://api.semanticscholar.org/graph/v1"
OA_BASE = "https://api.openalex.org"
# parameters that shape the answer's fields or size, not which records it holds
IGNORED = {"fields", "select", "limit", "per_page", "per-page", "mailto", "api_key"}


def run(coro):
    return asyncio.run(coro)


def load(shared: Path, name: str) -> dict:
    return json.loads((shared / "api_responses" / name).read_text())


def _path(url: str, base: str) -> str:
    path = unquote(urlsplit(url).path).removeprefix(urlsplit(base).path)
    # S2 takes a DOI with or without its prefix (/paper/10.1/x, /paper/DOI:10.1/x) and ids in any
    # case (CorpusID:1, CorpusId:1)
    return path.replace("/paper/DOI:", "/paper/").lower()


class Replay:
    """Answers each request with the recorded interaction of the same method, path and
    record-selecting parameters (query, offset, filter, ids …); 404 when none was recorded."""

    def __init__(self, base: str, *interactions: dict) -> None:
        self.base, self.interactions, self.requests = base, list(interactions), []

    def _params(self, url: str) -> dict:
        return {k: v for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=True) if k not in IGNORED}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        for it in self.interactions:
            if (
                it["method"] == request.method
                and _path(it["uri"], self.base) == _path(str(request.url), self.base)
                and self._params(it["uri"]) == self._params(str(request.url))
            ):
                status = it.get("status") or 200  # a few cassettes lost their status line; those were 200s
                body = it["body"]
                if isinstance(body, str):
                    return httpx.Response(
                        status, text=body, headers={"content-type": it.get("content_type") or ""}
                    )
                return httpx.Response(status, json=body)
        return httpx.Response(404, json={"error": f"no recorded response for {request.url}"})


def policy(api: str, base: str) -> HttpPolicy:
    return HttpPolicy(api=api, base_url=base, requests_per_second=1000, backoff_s=0.01, max_attempts=2)


def s2(handler) -> SemanticScholarClient:
    return SemanticScholarClient(
        ApiClient(policy("Semantic Scholar", S2_BASE), None, httpx.MockTransport(handler))
    )


def oa(handler) -> OpenAlexClient:
    return OpenAlexClient(ApiClient(policy("OpenAlex", OA_BASE), None, httpx.MockTransport(handler)))


# --------------------------------------------------------------------------- Semantic Scholar


def test_s2_search_parses_records_and_pages_by_offset(shared_data):
    first = load(shared_data, "s2_danielnsilva_decoded/test_search_paper_next_page__00.json")
    second = load(shared_data, "s2_danielnsilva_decoded/test_search_paper_next_page__01.json")
    replay = Replay(S2_BASE, first, second)
    records = run(s2(replay).search("turing", 150))
    assert len(records) == 150
    assert [r.url.params["offset"] for r in replay.requests] == ["0", "100"]
    assert [r.url.params["limit"] for r in replay.requests] == ["100", "50"]
    assert records[0].title == first["body"]["data"][0]["title"] and records[0].source == "s2"
    assert records[100].source_id == second["body"]["data"][0]["paperId"]


def test_s2_search_with_full_fields(shared_data):
    recorded = load(shared_data, "csed_paper_search_fixtures/s2_relevance_search.json")
    interaction = {
        "method": "GET",
        "uri": recorded["url"],
        "status": recorded["status_code"],
        "body": recorded["body"],
    }
    records = run(s2(Replay(S2_BASE, interaction)).search("attention mechanism", 5))
    assert len(records) == 5
    vaswani = records[0]
    assert vaswani.title == "Attention is All you Need" and vaswani.arxiv_id == "1706.03762"
    assert vaswani.year == 2017 and vaswani.abstract and vaswani.authors[0] == "Ashish Vaswani"


def test_s2_paper_by_doi_and_not_found(shared_data):
    found = load(shared_data, "paperqa_decoded/test_doi_search_paper_attributes1___00.json")
    missing = load(shared_data, "paperqa_decoded/test_bulk_doi_search__03.json")  # a real 404
    unknown = load(shared_data, "s2_danielnsilva_decoded/test_not_found__00.json")  # another real 404
    client = s2(Replay(S2_BASE, found, missing, unknown))
    record = run(client.get_paper("DOI:10.1023/A:1007154515475"))
    assert record is not None and record.doi == "10.1023/a:1007154515475"
    assert record.source_id == found["body"]["paperId"]
    assert run(client.get_paper("https://doi.org/10.1101/2024.04.01.587366")) is None
    assert run(client.get_paper("0")) is None


def test_s2_bad_request_is_a_clear_error(shared_data):
    recorded = load(shared_data, "s2_danielnsilva_decoded/test_bad_query_parameters__00.json")
    # the cassette lost its status line; S2 answers this request with 400

    def handler(request):
        return httpx.Response(400, json=recorded["body"])

    with pytest.raises(
        ApiStatusError,
        match=r"Semantic Scholar GET /paper/DOI:10\.1093/mind/lix\.236\.433: "
        r"HTTP 400: Unrecognized or unsupported fields",
    ) as err:
        run(s2(handler).get_paper("10.1093/mind/lix.236.433"))
    assert err.value.status == 400


def test_s2_batch_keeps_the_asked_ids_and_skips_unknown_ones(shared_data):
    recorded = load(shared_data, "s2_danielnsilva_decoded/test_get_papers_not_found_warning__00.json")
    forbidden = load(
        shared_data, "s2_danielnsilva_decoded/test_debug__00.json"
    )  # a real 403 from /paper/batch
    asked = [
        "CorpusId:211530585",
        "CorpusId:470667",
        "10.2139/ssrn.2250500",
        "0f40b1f08821e22e859c6050916cec3667778613",
    ]
    replay = Replay(S2_BASE, recorded)
    found = run(s2(replay).get_papers(asked))
    assert json.loads(replay.requests[0].content) == {
        "ids": [
            "CorpusId:211530585",
            "CorpusId:470667",
            "DOI:10.2139/ssrn.2250500",
            "0f40b1f08821e22e859c6050916cec3667778613",
        ]
    }
    assert "CorpusId:211530585" not in found  # S2 answered null for it
    assert found["CorpusId:470667"].title == "How Much Should We Trust Differences-in-Differences Estimates?"
    assert len(found) == sum(item is not None for item in recorded["body"])
    with pytest.raises(ApiStatusError, match=r"POST /paper/batch: HTTP 403: Forbidden"):
        run(s2(lambda r: httpx.Response(403, json=forbidden["body"])).get_papers(asked))
    with pytest.raises(MalformedResponse, match=r"POST /paper/batch: expected a list of 4 papers"):
        run(s2(lambda r: httpx.Response(200, json={"data": []})).get_papers(asked))


def test_s2_citations_page_through_offsets(shared_data):
    pages = [
        load(shared_data, f"s2_danielnsilva_decoded/test_get_paper_citations__{i:02d}.json") for i in range(3)
    ]
    replay = Replay(S2_BASE, *pages)
    links = run(s2(replay).citations("CorpusId:14514057", 250))
    assert len(links) == 250 and {link.direction for link in links} == {"cited_by"}
    assert [(r.url.params["offset"], r.url.params["limit"]) for r in replay.requests] == [
        ("0", "250"),
        ("100", "150"),
        ("200", "50"),
    ]
    assert links[100].record.source_id == pages[1]["body"]["data"][0]["citingPaper"]["paperId"]


def test_s2_references_skip_unresolved_entries(shared_data):
    pages = [
        load(shared_data, f"s2_danielnsilva_decoded/test_get_paper_references__{i:02d}.json")
        for i in range(2)
    ]
    links = run(s2(Replay(S2_BASE, *pages)).references("10.2139/ssrn.2250500", 100))
    recorded = [e for p in pages for e in p["body"]["data"]]
    assert len(recorded) == 67
    assert len(links) == sum(
        e["citedPaper"]["paperId"] is not None for e in recorded
    )  # 44: null ids cannot be followed
    assert {link.direction for link in links} == {"references"}


def test_s2_is_influential_from_citation_and_reference_edges(shared_data):
    """The recordings hold no multi-edge /citations page with isInfluential, so this page is built
    from real single records: Citation.json and Reference.json (real edges with their flag) and
    two real citing papers of Turing 1950 from Paper.json (flags set here: False and True)."""
    folder = shared_data / "api_responses" / "s2_danielnsilva_semanticscholar"
    citation = json.loads((folder / "Citation.json").read_text())
    reference = json.loads((folder / "Reference.json").read_text())
    turing = json.loads((folder / "Paper.json").read_text())
    cites_page = {
        "offset": 0,
        "data": [
            citation,
            {"isInfluential": False, "citingPaper": turing["citations"][0]},
            {"isInfluential": True, "citingPaper": turing["citations"][1]},
        ],
    }
    refs_page = {"offset": 0, "data": [reference]}

    def handler(request):
        return httpx.Response(200, json=cites_page if request.url.path.endswith("/citations") else refs_page)

    client = s2(handler)
    cited_by = run(client.citations("DOI:10.1093/mind/lix.236.433", 10))
    assert [link.is_influential for link in cited_by] == [True, False, True]
    assert cited_by[0].record.doi == "10.1109/lra.2022.3229266"
    assert cited_by[1].record.doi == "10.1109/jas.2024.124407"
    refs = run(client.references("DOI:10.1093/mind/lix.236.433", 10))
    assert len(refs) == 1 and refs[0].is_influential is False and refs[0].record.arxiv_id == "1402.0030"
    assert refs[0].record.abstract.startswith("Highly expressive directed latent variable models")


def test_malformed_answers_name_the_endpoint():
    def handler(request):
        if request.url.path.endswith("/search"):
            return httpx.Response(200, json={"data": "not a list"})
        return httpx.Response(200, text="<html>maintenance</html>", headers={"content-type": "text/html"})

    client = s2(handler)
    with pytest.raises(
        MalformedResponse, match=r"Semantic Scholar GET /paper/search: unexpected answer shape at data"
    ):
        run(client.search("anything", 5))
    with pytest.raises(
        MalformedResponse, match=r"GET /paper/DOI:10\.1000/x: answer is not JSON \(text/html\)"
    ):
        run(client.get_paper("10.1000/x"))


# --------------------------------------------------------------------------- OpenAlex


def test_openalex_search_rebuilds_abstracts_from_the_inverted_index(shared_data):
    recorded = load(shared_data, "csed_paper_search_fixtures/openalex_search.json")
    body = recorded["body"]
    replay = Replay(OA_BASE, {"method": "GET", "uri": recorded["url"], "status": 200, "body": body})

    def handler(request):  # the recording was made with sort and filter parameters Lyra does not send
        return (
            httpx.Response(200, json=body)
            if request.url.params.get("search") == '"attention mechanism"'
            else replay(request)
        )

    records = run(oa(handler).search('"attention mechanism"', 5))
    assert len(records) == len(body["results"]) == 5
    first, work = records[0], body["results"][0]
    assert first.source == "openalex" and first.source_id == work["id"].rsplit("/", 1)[1]
    assert first.abstract == " ".join(rebuild_abstract(work["abstract_inverted_index"]).split())
    # the rebuilt text puts each word at its recorded position
    positions = sorted((p, w) for w, ps in work["abstract_inverted_index"].items() for p in ps)
    assert first.abstract.split()[:5] == [w for _, w in positions[:5]]


def test_openalex_work_by_doi_and_an_html_404(shared_data):
    found = load(shared_data, "paperqa_decoded/test_doi_search_paper_attributes4___02.json")
    missing = load(shared_data, "paperqa_decoded/test_does_openalex_work_not-in-openalex___00.json")
    client = oa(Replay(OA_BASE, found, missing))
    record = run(client.get_paper("DOI:10.1073/pnas.1414271111"))
    assert record.doi == "10.1073/pnas.1414271111" and record.pmid == "25349395" and record.abstract
    assert run(client.get_paper("10.1046/j.1365-2699.2003.00795")) is None


def _pool(shared: Path) -> dict[str, dict]:
    """Every real OpenAlex work record in the recordings, by W id."""
    works: dict[str, dict] = {}
    root = shared / "api_responses"
    files = [
        *root.glob("openalex_bibgraph_cache/works/W*.json"),
        *root.glob("openalex_bibgraph_cache/works_queries/*.json"),
        *root.glob("commonmeta_openalex_decoded/*.json"),
        *root.glob("paperqa_decoded/*.json"),
    ]
    for file in files:
        data = json.loads(file.read_text())
        data = data.get("body", data) if isinstance(data, dict) else data
        items = data.get("results", [data]) if isinstance(data, dict) else []
        for item in items:
            if isinstance(item, dict) and str(item.get("id", "")).startswith("https://openalex.org/W"):
                works.setdefault(item["id"].rsplit("/", 1)[1], item)
    return works


def openalex_filter_server(pool: dict[str, dict], calls: list[str]):
    """``/works?filter=…`` answered from real records: openalex_id, doi and ids.pmid pick records;
    ``cites:W`` returns the records whose real referenced_works list W (so a derived page)."""

    def handler(request: httpx.Request) -> httpx.Response:
        flt = request.url.params.get("filter", "")
        calls.append(flt)
        name, _, values = flt.partition(":")
        wanted = set(values.lower().split("|"))
        if name == "openalex_id":
            hits = [w for k, w in pool.items() if k.lower() in wanted]
        elif name == "doi":
            hits = [
                w
                for w in pool.values()
                if (w.get("doi") or "").lower().removeprefix("https://doi.org/") in wanted
            ]
        elif name == "ids.pmid":
            hits = [
                w
                for w in pool.values()
                if ((w.get("ids") or {}).get("pmid") or "").rsplit("/", 1)[-1] in wanted
            ]
        elif name == "cites":
            hits = [
                w
                for w in pool.values()
                if any(r.lower().endswith("/" + values.lower()) for r in w.get("referenced_works") or [])
            ]
        else:
            return httpx.Response(404, json={"error": "unknown filter"})
        return httpx.Response(
            200, json={"meta": {"count": len(hits), "per_page": 50, "next_cursor": None}, "results": hits}
        )

    return handler


def test_openalex_references_are_fetched_in_batches_of_50(shared_data):
    pool = _pool(shared_data)
    resnet = pool["W2194775991"]  # "Deep Residual Learning for Image Recognition": 64 referenced works
    calls: list[str] = []
    client = oa(openalex_filter_server(pool, calls))
    refs = run(client.referenced([client_work(resnet)], 100))["W2194775991"]
    id_calls = [c for c in calls if c.startswith("openalex_id:")]
    assert len(id_calls) == 2 and [len(c.split("|")) for c in id_calls] == [
        50,
        14,
    ]  # never one call per reference
    wanted = {r.rsplit("/", 1)[1] for r in resnet["referenced_works"]}
    assert {r.source_id for r in refs} == wanted & set(pool)  # the references the recordings hold
    assert {"W1686810756", "W2064675550", "W2163605009"} <= {r.source_id for r in refs}


def client_work(item: dict):
    from lyra_resources.sources.academic import OAWork

    return OAWork.model_validate(item)


def test_openalex_citing_works_and_a_real_empty_cites_page(shared_data):
    """No recording holds a non-empty ``filter=cites:`` page; the citing works here are the real
    records whose real ``referenced_works`` name ResNet, served as one page. The empty page is real."""
    pool = _pool(shared_data)
    empty = load(
        shared_data,
        "openalex_bibgraph_cache/works_queries/"
        "filter__3D__cites__3A__W3209445140__26__page__3D__1__26__per_page__3D__50.json",
    )
    calls: list[str] = []
    by_filter = openalex_filter_server(pool, calls)

    def handler(request):
        if request.url.params.get("filter") == "cites:W3209445140":
            return httpx.Response(200, json=empty)
        return by_filter(request)

    client = oa(handler)
    citing = run(client.citations("W2194775991", 20))
    assert {link.record.source_id for link in citing} >= {"W4386076325"}
    assert {link.direction for link in citing} == {"cited_by"} and not any(
        link.is_influential for link in citing
    )
    assert run(client.citations("W3209445140", 20)) == []


def test_identifier_completion_turns_a_pmid_into_a_doi_without_crossref(shared_data):
    pool = _pool(shared_data)
    calls: list[str] = []
    client = oa(openalex_filter_server(pool, calls))
    bare = CanonicalPaper(
        paper_id="p1", pmid="17183658", title="A paper known only by its PMID", sources=["local:bib1"]
    )
    done = run(complete_identifiers([bare], [client]))
    assert calls == ["ids.pmid:17183658"]
    merged = canonicalize([*done.records])
    assert merged[0].doi == "10.1371/journal.pone.0000030" and merged[0].abstract
    assert done.resolved == {"p1"}
