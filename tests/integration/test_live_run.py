"""`lyra run` end to end against live sources that misbehave: a stand-in for both Semantic Scholar
and OpenAlex on 127.0.0.1, answering from recorded real records (tests/fixtures/academic_apis.py),
whose first answer to every other distinct request is a fault — 429 with Retry-After, a 5xx, or
no answer within the client's read timeout. The run must complete with papers from both APIs
(some found by both), and a re-run with the stand-in gone must give the same rows from the cache.

The search pages are assembled from real single records (none was recorded for one query):
Turing 1950 (S2, with its real references and citing papers as edge pages, ``isInfluential`` set
here), four OpenAlex works on image recognition and sequence learning, and two papers whose real
S2 and OpenAlex records both appear (PNAS 2014, Adv. Drug Deliv. Rev. 2015). The PNAS paper's
S2 references page is assembled from real S2 records of other papers.
"""

from __future__ import annotations

import io
import json
import re
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from fixtures.academic_apis import FakeScholar, body, serve_fake_apis
from lyra_resources.schema import PER_TASK_TABLES
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli import app

pytestmark = pytest.mark.slow  # loads the real embedder and NLI model

QUESTION = "Research on deep neural networks for image recognition and sequence learning"
READ_TIMEOUT_S = 1.0
FAULTS = ("429", "5xx", "timeout")


class FaultyScholar(FakeScholar):
    """The recorded stand-in, with the first answer to every other distinct request replaced by
    a fault, the kinds in turn; a retry of the same request is answered normally."""

    def _faulted(self, key: tuple) -> bool:
        srv = self.server
        with srv.lock:
            if key in srv.seen:
                return False
            srv.seen.add(key)
            if len(srv.seen) % 2:
                return False
            kind = FAULTS[(len(srv.seen) // 2) % len(FAULTS)]
            srv.injected.append((kind, key[0], key[1].split("?")[0]))
        self.close_connection = True
        if kind == "429":
            raw = json.dumps({"message": "Too Many Requests"}).encode()
            self.send_response(429)
            self.send_header("Retry-After", "0.05")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
        elif kind == "5xx":
            self._send((500, 502, 503)[len(srv.injected) % 3], {"message": "Service Unavailable"})
        else:  # answer nothing until the client has given up on this attempt
            time.sleep(READ_TIMEOUT_S * 2)
        return True

    def do_GET(self):
        if not self._faulted(("GET", self.path)):
            super().do_GET()

    def do_POST(self):
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        if self._faulted(("POST", self.path, raw)):
            return
        self.rfile = io.BytesIO(raw)
        super().do_POST()


@pytest.fixture
def faulty_apis(shared_data, monkeypatch):
    apis = serve_fake_apis(shared_data, monkeypatch)
    srv = next(apis)
    srv.RequestHandlerClass = FaultyScholar
    srv.lock, srv.seen, srv.injected = threading.Lock(), set(), []
    yield srv
    next(apis, None)


def _serve_records(shared: Path, srv) -> None:
    api = shared / "api_responses"
    turing = json.loads((api / "s2_danielnsilva_semanticscholar" / "Paper.json").read_text())
    srv.s2_edges[f"doi:{turing['externalIds']['DOI'].lower()}"] = srv.s2_edges[turing["paperId"].lower()] = {
        "references": [
            {"isInfluential": i % 4 == 0, "citedPaper": r} for i, r in enumerate(turing["references"])
        ],
        "citations": [
            {"isInfluential": i % 5 == 0, "citingPaper": c} for i, c in enumerate(turing["citations"])
        ],
    }
    turing = {k: v for k, v in turing.items() if k not in ("citations", "references", "embedding", "tldr")}
    s2_pair = [
        body(shared, f"paperqa_decoded/test_doi_search_paper_attributes{i}___00.json") for i in range(5)
    ]
    oa_pair = [body(shared, f"paperqa_decoded/test_doi_search_paper_attributes{i}___02.json") for i in (3, 4)]
    srv.s2_edges[s2_pair[4]["paperId"]] = {
        "references": [{"isInfluential": i == 3, "citedPaper": r} for i, r in enumerate(s2_pair[:4])],
        "citations": [],
    }
    srv.s2_search = {"total": 3, "offset": 0, "data": [turing, s2_pair[3], s2_pair[4]]}
    oa_only = [srv.oa_works[w] for w in ("W2194775991", "W1686810756", "W2163605009", "W2064675550")]
    srv.oa_search = {"meta": {"count": 6, "page": 1, "per_page": 50}, "results": [*oa_only, *oa_pair]}


def _tables(home: Path, task_id: str) -> dict[str, pd.DataFrame]:
    """Every per-task table of the task, rows in a fixed order, wall-clock columns left out."""
    store = LyraStore.at(home)
    out = {}
    for table in PER_TASK_TABLES:
        frame = store.read_partition(table, task_id)
        frame = frame.drop(
            columns=[c for c in frame.columns if pd.api.types.is_datetime64_any_dtype(frame[c])]
        )
        out[table] = frame.map(lambda v: tuple(v) if hasattr(v, "__len__") and not isinstance(v, str) else v)
    return out


def test_a_live_run_survives_faulty_apis_and_reruns_offline_from_the_cache(
    tmp_path, shared_data, faulty_apis, lyra_settings
):
    _serve_records(shared_data, faulty_apis)
    lyra_settings(
        sources={"max_attempts": 3, "read_timeout_s": READ_TIMEOUT_S, "max_retry_wait_s": 5},
        browser={"search": "off", "fetch": "off"},
        evidence={"max_claims": 8, "nli_top_k": 3},
        citations={"references_per_paper": 15, "citations_per_paper": 15, "selected_per_paper": 3},
    )
    home = tmp_path / "home"
    cli = CliRunner()
    result = cli.invoke(app, ["run", QUESTION, "--papers", "10", "--home", str(home)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "completed" in result.output
    task_id = re.search(r"task_[0-9a-f]{8}", result.output).group(0)

    # every kind of fault was met, on both APIs, and retried through
    kinds = {kind for kind, _, _ in faulty_apis.injected}
    assert kinds == set(FAULTS), faulty_apis.injected
    assert {path.split("/")[1] for _, _, path in faulty_apis.injected} == {"graph", "openalex"}

    store = LyraStore.at(home)
    papers = store.read_partition("papers", task_id)
    apis = [sorted({s.split(":")[0] for s in sources}) for sources in papers["sources"]]
    assert ["openalex", "s2"] in apis and ["s2"] in apis and ["openalex"] in apis
    merged = papers[[a == ["openalex", "s2"] for a in apis]]
    assert set(merged["doi"]) == {"10.1073/pnas.1414271111", "10.1016/j.addr.2015.01.008"}
    assert papers["paper_id"].is_unique and papers["doi"].dropna().is_unique
    expansions = store.read_partition("citation_expansions", task_id)
    assert set(merged["paper_id"]) & set(expansions["paper_id"])  # a merged paper was expanded
    assert not expansions.duplicated(["paper_id", "candidate_paper_id", "direction"]).any()
    before = _tables(home, task_id)
    assert len(before["fragments"]) and len(before["claims"])

    # the stand-in gone: the re-run answers from the cache and writes the same rows
    faulty_apis.shutdown()
    faulty_apis.server_close()
    again = cli.invoke(app, ["task", "run", task_id, "--home", str(home)], catch_exceptions=False)
    assert again.exit_code == 0, again.output
    after = _tables(home, task_id)
    for table, frame in before.items():
        pd.testing.assert_frame_equal(after[table], frame, obj=table)
