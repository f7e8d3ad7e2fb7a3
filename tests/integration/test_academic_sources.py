"""The ``papers`` asset with live sources served by a local HTTP server (the base URLs point at it):
merging S2 and OpenAlex records, one source failing, identifier completion, and no network.

The server (tests/fixtures/academic_apis.py) answers from recorded real records
(../shared/data/api_responses); search pages and edge lists that were never recorded are assembled
from real single records (said where done).
"""

from __future__ import annotations

import json

from fixtures.academic_apis import body, closed_port
from fixtures.hash_models import materialize_task, metadata
from lyra_assets.execution import run_control
from lyra_resources.store.lyra_store import LyraStore

# --------------------------------------------------------------------------- tests


def test_the_same_paper_from_s2_and_openalex_is_one_row(lyra_home, shared_data, fake_apis, lyra_settings):
    """Search pages assembled from the real S2 and OpenAlex records of one paper (PNAS 2014)."""
    lyra_settings()
    s2_record = body(shared_data, "paperqa_decoded/test_doi_search_paper_attributes4___00.json")
    oa_record = body(shared_data, "paperqa_decoded/test_doi_search_paper_attributes4___02.json")
    fake_apis.s2_search = {"total": 1, "offset": 0, "data": [s2_record]}
    fake_apis.oa_search = {"meta": {"count": 1, "page": 1, "per_page": 50}, "results": [oa_record]}
    task = LyraStore.at(lyra_home).create_task(
        "Research on hypoxia and collagen cross-linking in engineered tissue"
    )
    result = materialize_task(lyra_home, task.id, "papers")
    papers = LyraStore.at(lyra_home).read_partition("papers", task.id)
    assert len(papers) == 1
    row = papers.iloc[0]
    assert row["doi"] == "10.1073/pnas.1414271111" and row["pmid"] == "25349395"
    assert list(row["sources"]) == [
        f"s2:{s2_record['paperId']}",
        "openalex:" + oa_record["id"].rsplit("/", 1)[1],
    ]
    assert row["abstract"]  # S2 sent none for it; OpenAlex's inverted index did
    meta = metadata(result, "papers")
    assert meta["records_per_source"] == {"s2": 1, "openalex": 1}
    assert meta["academic_query"].startswith("True by keyword")
    search = [p for m, path, p in fake_apis.requests if path == "/graph/v1/paper/search"]
    assert search and "abstract" in search[0]["fields"] and "externalIds" in search[0]["fields"]


def test_an_api_error_in_one_source_does_not_fail_papers(lyra_home, shared_data, fake_apis, lyra_settings):
    lyra_settings()
    fake_apis.s2_search = {"total": 1, "offset": 0, "data": "not a list"}  # malformed
    oa_record = body(shared_data, "paperqa_decoded/test_doi_search_paper_attributes4___02.json")
    fake_apis.oa_search = {"meta": {"count": 1}, "results": [oa_record]}
    task = LyraStore.at(lyra_home).create_task(
        "Research on hypoxia and collagen cross-linking in engineered tissue"
    )
    result = materialize_task(lyra_home, task.id, "papers")
    papers = LyraStore.at(lyra_home).read_partition("papers", task.id)
    assert list(papers["doi"]) == ["10.1073/pnas.1414271111"]
    errors = metadata(result, "papers")["api_errors"]
    assert errors[0]["source"] == "Semantic Scholar" and errors[0]["location"] == "GET /paper/search"
    assert "unexpected answer shape at data" in errors[0]["reason"]
    # and 5xx that outlast the retries count the same way
    fake_apis.s2_search = (503, {"message": "Service Unavailable"})
    result = materialize_task(lyra_home, task.id, "papers")
    assert "gave up after 2 attempts" in metadata(result, "papers")["api_errors"][0]["reason"]


def pmid_only_task(lyra_home, tmp_path):
    """A task over a one-record library: a PMID and a title, no abstract, no DOI; its papers materialized."""
    corpus = tmp_path / "library.jsonl"
    corpus.write_text(
        json.dumps(
            {
                "paperId": "mine-1",
                "externalIds": {"PubMed": "17183658"},
                "title": "Triose phosphate isomerase deficiency and dimerization",
            }
        )
        + "\n"
    )
    task = LyraStore.at(lyra_home).create_task(
        "triose phosphate isomerase deficiency", {"corpus": [str(corpus)]}
    )
    return task, materialize_task(lyra_home, task.id, "papers")


def test_identifier_completion_fills_a_pmid_only_paper(
    lyra_home, shared_data, fake_apis, lyra_settings, tmp_path
):
    """A local record with a PMID and no abstract gets OpenAlex's DOI and abstract (phase 3)."""
    lyra_settings(sources={"live": "on"})
    task, result = pmid_only_task(lyra_home, tmp_path)
    row = LyraStore.at(lyra_home).read_partition("papers", task.id).iloc[0]
    assert row["doi"] == "10.1371/journal.pone.0000030" and row["abstract"]
    assert row["sources"][0] == "local:mine-1" and any(s.startswith("openalex:W") for s in row["sources"])
    assert metadata(result, "papers")["completed_by_identifier"] == 1
    asked = [p for m, path, p in fake_apis.requests if m == "POST"]
    assert asked and asked[0]["ids"] == ["PMID:17183658"]  # S2 batch asked too (it knows nothing here)


def test_identifier_completion_goes_on_when_s2s_batch_answers_404(
    lyra_home, shared_data, fake_apis, lyra_settings, tmp_path
):
    """S2 answers /paper/batch with 404 when it knows none of the ids: it found nothing, and
    OpenAlex's record still completes the paper."""
    lyra_settings(sources={"live": "on"})
    fake_apis.s2_batch = (404, {"error": "not found"})
    task, result = pmid_only_task(lyra_home, tmp_path)
    row = LyraStore.at(lyra_home).read_partition("papers", task.id).iloc[0]
    assert row["doi"] == "10.1371/journal.pone.0000030" and row["abstract"]
    assert metadata(result, "papers")["completed_by_identifier"] == 1
    assert not metadata(result, "papers").get("api_errors")  # a 404 is an answer, not a failure
    assert [p["ids"] for m, path, p in fake_apis.requests if m == "POST"] == [["PMID:17183658"]]


def test_no_network_without_a_corpus_is_one_clear_line(lyra_home, lyra_settings, monkeypatch):
    lyra_settings()
    dead = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("LYRA_S2_BASE_URL", dead)
    monkeypatch.setenv("LYRA_OPENALEX_BASE_URL", dead)
    task = LyraStore.at(lyra_home).create_task("Does vitamin D supplementation reduce fracture risk?")
    outcome = run_control.run_task(task.id, lyra_home)
    assert not outcome.success and outcome.assets["papers"].state == "failed"
    # run_control shows the innermost error as "<type>: <message>"
    assert outcome.error.startswith(
        "lyra_assets.sources.SourcesUnavailableError: no network: "
        "could not reach Semantic Scholar or OpenAlex (cannot connect to 127.0.0.1"
    )
    assert "--corpus" in outcome.error and "\n" not in outcome.error


def test_no_network_goes_on_with_the_configured_corpus(lyra_home, lyra_settings, monkeypatch, tmp_path):
    corpus = tmp_path / "library.jsonl"  # S2-shaped records with DOIs: citation tracking needs the network
    corpus.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in [
                {
                    "paperId": "a1",
                    "title": "Vitamin D supplementation and fracture risk in older adults",
                    "abstract": "High-dose vitamin D reduced hip fracture risk by 30%.",
                    "externalIds": {"DOI": "10.1000/vitd.1"},
                },
                {
                    "paperId": "a2",
                    "title": "Calcium and vitamin D in postmenopausal women",
                    "abstract": "Calcium with vitamin D did not reduce hip fractures.",
                    "externalIds": {"DOI": "10.1000/vitd.2"},
                },
            ]
        )
    )
    lyra_settings(corpus=[str(corpus)])
    dead = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("LYRA_S2_BASE_URL", dead)
    monkeypatch.setenv("LYRA_OPENALEX_BASE_URL", dead)
    task = LyraStore.at(lyra_home).create_task("Does vitamin D supplementation reduce fracture risk?")
    result = materialize_task(lyra_home, task.id, "papers", "citation_expansions", "pages", "fragments")
    store = LyraStore.at(lyra_home)
    papers = store.read_partition("papers", task.id)
    assert len(papers) == 2 and set(papers["doi"]) == {"10.1000/vitd.1", "10.1000/vitd.2"}
    assert "no network" in metadata(result, "papers")["live_sources"]
    assert "continuing with the local corpus" in metadata(result, "papers")["live_sources"]
    assert metadata(result, "citation_expansions")["skipped"].startswith("no network: could not reach")
    assert len(store.read_partition("citation_expansions", task.id)) == 0
    assert len(store.read_partition("fragments", task.id)) > 0


def test_citation_tracking_says_why_when_no_paper_has_an_identifier(lyra_home, lyra_settings, small_corpus):
    lyra_settings(sources={"live": "on", "connect_timeout_s": 1}, corpus=[str(small_corpus)])
    task = LyraStore.at(lyra_home).create_task("vitamin D fracture", {"corpus": [str(small_corpus)]})
    result = materialize_task(lyra_home, task.id, "papers", "citation_expansions")
    count = len(LyraStore.at(lyra_home).read_partition("papers", task.id))
    assert metadata(result, "citation_expansions")["skipped"] == (
        f"none of the task's {count} papers has a DOI, PMID, arXiv id or S2/OpenAlex id to follow"
    )


def test_live_sources_off_touch_no_network(lyra_home, lyra_settings, small_corpus, monkeypatch):
    lyra_settings(sources={"live": "off"})
    monkeypatch.setenv("LYRA_S2_BASE_URL", "http://192.0.2.1")  # TEST-NET: any attempt would hang, not fail
    task = LyraStore.at(lyra_home).create_task("vitamin D fracture", {"corpus": [str(small_corpus)]})
    result = materialize_task(lyra_home, task.id, "papers", "citation_expansions")
    assert metadata(result, "papers")["academic_query"] == "not asked (live sources not used)"
    assert (
        metadata(result, "citation_expansions")["skipped"]
        == "live sources not used: live sources off (sources.live: off)"
    )


def test_when_every_source_fails_the_error_names_them(lyra_home, shared_data, fake_apis, lyra_settings):
    lyra_settings()
    fake_apis.s2_search = (
        400,
        {"error": "Unrecognized or unsupported fields: [unknown]"},
    )  # S2's real 400 text
    fake_apis.oa_search = (403, {"error": "Forbidden"})
    task = LyraStore.at(lyra_home).create_task("Does vitamin D supplementation reduce fracture risk?")
    result = materialize_task(lyra_home, task.id, "papers", raise_on_error=False)
    error = result.get_step_failure_events()[0].event_specific_data.error
    while error.cause is not None:
        error = error.cause
    assert error.message.startswith(
        "lyra_assets.sources.SourcesUnavailableError: no literature source answered: "
    )
    assert "Semantic Scholar GET /paper/search: HTTP 400: Unrecognized or unsupported fields" in error.message
    assert "OpenAlex GET /works: HTTP 403: Forbidden" in error.message
