"""The ``papers`` asset with live sources served by a local HTTP server (the base URLs point at it):
merging S2 and OpenAlex records, one source failing, identifier completion, and no network.

The server answers from recorded real records (../shared/data/api_responses); search pages and
edge lists that were never recorded are assembled from real single records (said where done).
It is shared with tests/test_citations.py.
"""

from __future__ import annotations

import json
import socket
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

import numpy as np
import yaml
from dagster import DagsterInstance, materialize

from lyra_assets.definitions import ASSETS, build_resources
from lyra_assets.partitions import TASKS_PARTITION
from lyra_resources.local_models import LocalModels
from lyra_resources.store import LyraStore
from lyra_tools import runner

API = "api_responses"


# --------------------------------------------------------------------------- recorded data


def body(shared: Path, name: str):
    data = json.loads((shared / API / name).read_text())
    return data["body"] if "uri" in data or "url" in data else data


def openalex_pool(shared: Path) -> dict[str, dict]:
    """Every real OpenAlex work record in the recordings, by W id."""
    works: dict[str, dict] = {}
    root = shared / API
    for file in [*root.glob("openalex_bibgraph_cache/works/W*.json"),
                 *root.glob("openalex_bibgraph_cache/works_queries/*.json"),
                 *root.glob("commonmeta_openalex_decoded/*.json"), *root.glob("paperqa_decoded/*.json")]:
        data = json.loads(file.read_text())
        data = data.get("body", data) if isinstance(data, dict) else data
        for item in (data.get("results", [data]) if isinstance(data, dict) else []):
            if isinstance(item, dict) and str(item.get("id", "")).startswith("https://openalex.org/W"):
                works.setdefault(item["id"].rsplit("/", 1)[1], item)
    return works


# --------------------------------------------------------------------------- the fake APIs


class FakeScholar(BaseHTTPRequestHandler):
    """S2 under /graph/v1, OpenAlex under /openalex, from the dictionaries on the server:
    ``s2_search`` / ``oa_search`` (a body, or (status, body)), ``s2_papers`` (by lower-case
    ``doi:…``/paperId), ``s2_edges`` (id → {"references": [...], "citations": [...]}) and
    ``oa_works`` (W id → work). OpenAlex filters are computed over ``oa_works``."""

    def log_message(self, *args):
        pass

    def _send(self, status, payload):
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _answer(self, canned):
        status, payload = canned if isinstance(canned, tuple) else (200, canned)
        self._send(status, payload)

    def do_GET(self):
        url = urlsplit(self.path)
        path, params = unquote(url.path), dict(parse_qsl(url.query))
        self.server.requests.append(("GET", path, params))
        srv = self.server
        if path == "/graph/v1/paper/search":
            return self._answer(srv.s2_search)
        if path.startswith("/graph/v1/paper/"):
            rest = path.removeprefix("/graph/v1/paper/")
            head, _, tail = rest.rpartition("/")
            if tail in ("references", "citations"):
                edges = srv.s2_edges.get(_s2_key(head))
                if edges is None:
                    return self._send(404, {"error": f"Paper with id {head} not found"})
                offset, limit = int(params.get("offset", 0)), int(params.get("limit", 100))
                page = edges[tail][offset:offset + limit]
                more = offset + limit < len(edges[tail])
                return self._send(200, {"offset": offset, **({"next": offset + limit} if more else {}), "data": page})
            paper = srv.s2_papers.get(_s2_key(rest))
            return self._send(200, paper) if paper else self._send(404, {"error": f"Paper with id {rest} not found"})
        if path == "/openalex/works":
            if "search" in params:
                return self._answer(srv.oa_search)
            return self._send(200, self._filter(params.get("filter", "")))
        if path.startswith("/openalex/works/"):
            key = path.removeprefix("/openalex/works/")
            hit = srv.oa_works.get(key) or next(
                (w for w in srv.oa_works.values() if (w.get("doi") or "").lower() == key.lower()), None)
            return self._send(200, hit) if hit else self._send(404, {"error": "not found"})
        return self._send(404, {"error": f"no route {path}"})

    def do_POST(self):
        url = urlsplit(self.path)
        ids = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["ids"]
        self.server.requests.append(("POST", unquote(url.path), {"ids": ids}))
        return self._send(200, [self.server.s2_papers.get(_s2_key(i)) for i in ids])

    def _filter(self, flt: str) -> dict:
        name, _, values = flt.partition(":")
        wanted = set(values.lower().split("|"))
        works = self.server.oa_works.values()
        if name == "openalex_id":
            hits = [w for w in works if w["id"].rsplit("/", 1)[1].lower() in wanted]
        elif name == "doi":
            hits = [w for w in works if (w.get("doi") or "").lower().removeprefix("https://doi.org/") in wanted]
        elif name == "ids.pmid":
            hits = [w for w in works if ((w.get("ids") or {}).get("pmid") or "").rsplit("/", 1)[-1] in wanted]
        elif name == "cites":  # works whose real referenced_works name it
            hits = [w for w in works if any(r.lower().endswith("/" + values.lower())
                                            for r in w.get("referenced_works") or [])]
        else:
            hits = []
        return {"meta": {"count": len(hits), "per_page": 100, "next_cursor": None}, "results": hits}


def _s2_key(value: str) -> str:
    return value.lower()


def start_fake(shared: Path) -> ThreadingHTTPServer:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), FakeScholar)
    srv.requests = []
    srv.s2_search = body(shared, "s2_danielnsilva_decoded/test_empty_paginated_results__00.json")  # real, empty
    srv.oa_search = body(shared, "openalex_bibgraph_cache/works_queries/"
                                 "filter__3D__cites__3A__W3209445140__26__page__3D__1__26__per_page__3D__50.json")
    srv.s2_papers, srv.s2_edges, srv.oa_works = {}, {}, openalex_pool(shared)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def serve_fake_apis(shared: Path, monkeypatch):
    """The fake APIs running, with the base URLs pointing at them (a fixture body, shared)."""
    srv = start_fake(shared)
    monkeypatch.setenv("LYRA_S2_BASE_URL", f"http://127.0.0.1:{srv.server_port}/graph/v1")
    monkeypatch.setenv("LYRA_OPENALEX_BASE_URL", f"http://127.0.0.1:{srv.server_port}/openalex")
    yield srv
    srv.shutdown()
    srv.server_close()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def settings_writer(tmp_path: Path, monkeypatch):
    """Write settings for one test (merged over fast defaults) and make every module read them."""
    monkeypatch.delenv("LYRA_SOURCES_LIVE", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    monkeypatch.delenv("S2_API_KEY", raising=False)

    def write(**sections) -> dict:
        base = {"sources": {"s2_requests_per_second": 100, "openalex_requests_per_second": 100, "backoff_s": 0.01,
                            "max_attempts": 2, "connect_timeout_s": 1},
                "llm": {"ollama_url": f"http://127.0.0.1:{closed_port()}", "timeout_s": 5}}
        for key, value in sections.items():
            base[key] = {**base.get(key, {}), **value} if isinstance(value, dict) else value
        path = tmp_path / "settings.yaml"
        path.write_text(yaml.safe_dump(base))
        monkeypatch.setenv("LYRA_SETTINGS", str(path))  # read by every command and run from now on
        return base

    yield write


class HashEmbedder:
    """A stand-in for MiniLM: hashed word counts, L2-normalised (deterministic and instant)."""

    dimension = 256

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in str(text).lower().split():
                out[i, zlib.crc32(word.strip(".,;:()").encode()) % self.dimension] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


class HashModels(LocalModels):
    def embedder(self):
        return HashEmbedder()


def resources(home: Path) -> dict:
    return {**build_resources(home), "models": HashModels(embedder_name="test-hash")}


def assets(*names: str):
    return [a for a in ASSETS if any(key.to_user_string() in names for key in a.keys)]


def materialize_task(home: Path, task_id: str, *names: str, raise_on_error: bool = True):
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task_id])
        return materialize(assets(*names), partition_key=task_id, resources=resources(home), instance=instance,
                           raise_on_error=raise_on_error)


def metadata(result, asset: str) -> dict:
    event = next(e for e in result.get_asset_materialization_events() if e.asset_key.to_user_string() == asset)
    return {k: v.value for k, v in event.event_specific_data.materialization.metadata.items()}


# --------------------------------------------------------------------------- tests


def test_the_same_paper_from_s2_and_openalex_is_one_row(lyra_home, shared_data, fake_apis, lyra_settings):
    """Search pages assembled from the real S2 and OpenAlex records of one paper (PNAS 2014)."""
    lyra_settings()
    s2_record = body(shared_data, "paperqa_decoded/test_doi_search_paper_attributes4___00.json")
    oa_record = body(shared_data, "paperqa_decoded/test_doi_search_paper_attributes4___02.json")
    fake_apis.s2_search = {"total": 1, "offset": 0, "data": [s2_record]}
    fake_apis.oa_search = {"meta": {"count": 1, "page": 1, "per_page": 50}, "results": [oa_record]}
    task = LyraStore.at(lyra_home).create_task("Research on hypoxia and collagen cross-linking in engineered tissue")
    result = materialize_task(lyra_home, task.id, "papers")
    papers = LyraStore.at(lyra_home).read_partition("papers", task.id)
    assert len(papers) == 1
    row = papers.iloc[0]
    assert row["doi"] == "10.1073/pnas.1414271111" and row["pmid"] == "25349395"
    assert list(row["sources"]) == [f"s2:{s2_record['paperId']}", "openalex:" + oa_record["id"].rsplit("/", 1)[1]]
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
    task = LyraStore.at(lyra_home).create_task("Research on hypoxia and collagen cross-linking in engineered tissue")
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


def test_identifier_completion_fills_a_pmid_only_paper(lyra_home, shared_data, fake_apis, lyra_settings, tmp_path):
    """A local record with a PMID and no abstract gets OpenAlex's DOI and abstract (phase 3)."""
    lyra_settings(sources={"live": "on"})
    corpus = tmp_path / "library.jsonl"
    corpus.write_text(json.dumps({"paperId": "mine-1", "externalIds": {"PubMed": "17183658"},
                                  "title": "Triose phosphate isomerase deficiency and dimerization"}) + "\n")
    task = LyraStore.at(lyra_home).create_task("triose phosphate isomerase deficiency", {"corpus": [str(corpus)]})
    result = materialize_task(lyra_home, task.id, "papers")
    row = LyraStore.at(lyra_home).read_partition("papers", task.id).iloc[0]
    assert row["doi"] == "10.1371/journal.pone.0000030" and row["abstract"]
    assert row["sources"][0] == "local:mine-1" and any(s.startswith("openalex:W") for s in row["sources"])
    assert metadata(result, "papers")["completed_by_identifier"] == 1
    asked = [p for m, path, p in fake_apis.requests if m == "POST"]
    assert asked and asked[0]["ids"] == ["PMID:17183658"]  # S2 batch asked too (it knows nothing here)


def test_no_network_without_a_corpus_is_one_clear_line(lyra_home, lyra_settings, monkeypatch):
    lyra_settings()
    dead = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("LYRA_S2_BASE_URL", dead)
    monkeypatch.setenv("LYRA_OPENALEX_BASE_URL", dead)
    task = LyraStore.at(lyra_home).create_task("Does vitamin D supplementation reduce fracture risk?")
    outcome = runner.run_task(task.id, lyra_home)
    assert not outcome.success and outcome.assets["papers"].state == "failed"
    # the runner shows the innermost error as "<type>: <message>"
    assert outcome.error.startswith("lyra_assets.sources.SourcesUnavailableError: no network: "
                                    "could not reach Semantic Scholar or OpenAlex (cannot connect to 127.0.0.1")
    assert "--corpus" in outcome.error and "\n" not in outcome.error


def test_no_network_goes_on_with_the_configured_corpus(lyra_home, lyra_settings, monkeypatch, tmp_path):
    corpus = tmp_path / "library.jsonl"  # S2-shaped records with DOIs: citation tracking needs the network
    corpus.write_text("".join(json.dumps(r) + "\n" for r in [
        {"paperId": "a1", "title": "Vitamin D supplementation and fracture risk in older adults",
         "abstract": "High-dose vitamin D reduced hip fracture risk by 30%.", "externalIds": {"DOI": "10.1000/vitd.1"}},
        {"paperId": "a2", "title": "Calcium and vitamin D in postmenopausal women",
         "abstract": "Calcium with vitamin D did not reduce hip fractures.", "externalIds": {"DOI": "10.1000/vitd.2"}},
    ]))
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
        f"none of the task's {count} papers has a DOI, PMID, arXiv id or S2/OpenAlex id to follow")


def test_live_sources_off_touch_no_network(lyra_home, lyra_settings, small_corpus, monkeypatch):
    lyra_settings(sources={"live": "off"})
    monkeypatch.setenv("LYRA_S2_BASE_URL", "http://192.0.2.1")  # TEST-NET: any attempt would hang, not fail
    task = LyraStore.at(lyra_home).create_task("vitamin D fracture", {"corpus": [str(small_corpus)]})
    result = materialize_task(lyra_home, task.id, "papers", "citation_expansions")
    assert metadata(result, "papers")["academic_query"] == "not asked (live sources not used)"
    assert metadata(result, "citation_expansions")["skipped"] == "live sources not used: live sources off (sources.live: off)"


def test_when_every_source_fails_the_error_names_them(lyra_home, shared_data, fake_apis, lyra_settings):
    lyra_settings()
    fake_apis.s2_search = (400, {"error": "Unrecognized or unsupported fields: [unknown]"})  # S2's real 400 text
    fake_apis.oa_search = (403, {"error": "Forbidden"})
    task = LyraStore.at(lyra_home).create_task("Does vitamin D supplementation reduce fracture risk?")
    result = materialize_task(lyra_home, task.id, "papers", raise_on_error=False)
    error = result.get_step_failure_events()[0].event_specific_data.error
    while error.cause is not None:
        error = error.cause
    assert error.message.startswith("lyra_assets.sources.SourcesUnavailableError: no literature source answered: ")
    assert "Semantic Scholar GET /paper/search: HTTP 400: Unrecognized or unsupported fields" in error.message
    assert "OpenAlex GET /works: HTTP 403: Forbidden" in error.message
