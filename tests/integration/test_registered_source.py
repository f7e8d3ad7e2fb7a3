"""A live source added through ``registry.register`` ("mirror", tests/fixtures/mirror_source.py),
served by a local HTTP server, goes through the same paths as Semantic Scholar and OpenAlex: the
task input check probes it, and the ``papers`` asset searches it and records its papers."""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer

import pytest

from fixtures.academic_apis import closed_port
from fixtures.hash_models import materialize_task, metadata
from fixtures.mirror_source import BASE_ENV, NAME, MirrorHandler, mirror_spec, real_item
from lyra_resources.sources.academic.registry import register, unregister
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.task_input import TaskInputError, check_task_input

QUESTION = "Research on hypoxia and collagen cross-linking in engineered tissue"


@pytest.fixture
def mirror_api(shared_data, monkeypatch):
    srv = ThreadingHTTPServer(("127.0.0.1", 0), MirrorHandler)
    srv.requests, srv.items, srv.links = [], [real_item(shared_data)], {}
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    monkeypatch.setenv(BASE_ENV, f"http://127.0.0.1:{srv.server_port}")
    spec = register(mirror_spec())
    yield srv
    unregister(spec.name)
    srv.shutdown()
    srv.server_close()


def test_a_registered_source_carries_a_task_when_s2_and_openalex_are_down(
    lyra_home, lyra_settings, monkeypatch, mirror_api
):
    lyra_settings()
    dead = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("LYRA_S2_BASE_URL", dead)
    monkeypatch.setenv("LYRA_OPENALEX_BASE_URL", dead)
    checked = check_task_input(QUESTION, {}, lyra_home)  # one live source can be reached: no refusal
    assert not checked.options.corpus
    task = LyraStore.at(lyra_home).create_task(checked.query)
    result = materialize_task(lyra_home, task.id, "papers")
    papers = LyraStore.at(lyra_home).read_partition("papers", task.id)
    item = mirror_api.items[0]
    assert [list(s) for s in papers["sources"]] == [[f"{NAME}:{item['id']}"]]
    assert list(papers["doi"]) == [item["doi"].lower()]
    meta = metadata(result, "papers")
    assert meta["records_per_source"] == {"s2": 0, "openalex": 0, NAME: 1}
    assert "2 live API call(s) failed" in meta["live_sources"]
    assert [path for path, _ in mirror_api.requests][:1] == ["/search"]


def test_with_every_registered_source_down_the_task_is_refused_naming_them(
    lyra_home, lyra_settings, monkeypatch, mirror_api
):
    lyra_settings()
    dead = f"http://127.0.0.1:{closed_port()}"
    for env in ("LYRA_S2_BASE_URL", "LYRA_OPENALEX_BASE_URL", BASE_ENV):
        monkeypatch.setenv(env, dead)
    with pytest.raises(
        TaskInputError, match="^no network: could not reach Semantic Scholar or OpenAlex or Mirror "
    ):
        check_task_input(QUESTION, {}, lyra_home)


def test_a_paper_known_only_by_its_id_in_a_registered_source_is_followed(
    lyra_home, lyra_settings, monkeypatch, shared_data, mirror_api
):
    """Citation tracking follows a paper with no DOI, PMID or arXiv id through the source it came from."""
    lyra_settings()
    dead = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("LYRA_S2_BASE_URL", dead)
    monkeypatch.setenv("LYRA_OPENALEX_BASE_URL", dead)
    item = {**mirror_api.items[0], "doi": None}
    cited = {**real_item(shared_data, "paperqa_decoded/test_bulk_doi_search__02.json"), "id": "m-cited"}
    mirror_api.items = [item]
    mirror_api.links = {item["id"]: {"references": [cited], "cited_by": []}}
    task = LyraStore.at(lyra_home).create_task(QUESTION)
    result = materialize_task(lyra_home, task.id, "papers", "citation_expansions")
    assert "skipped" not in metadata(result, "citation_expansions")
    rows = LyraStore.at(lyra_home).read_partition("citation_expansions", task.id)
    assert [(d, list(s)) for d, s in zip(rows["direction"], rows["sources"], strict=True)] == [
        ("references", [f"{NAME}:m-cited"])
    ]
    assert ("/links", {"id": item["id"]}) in mirror_api.requests
