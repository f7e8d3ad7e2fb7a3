"""Citation tracking (phase 5): the two-stage scores, the merge of S2 and OpenAlex candidates, and
the ``citation_expansions`` → ``pages`` → ``fragments`` / ``citation_edges`` assets against a local
server answering as S2 and OpenAlex do, with no LLM (fallback recorded) and with a fake Ollama.

The task's two papers are Turing 1950 (S2 record) and ResNet 2016 (OpenAlex record). Turing's
references and citing papers are its real ones from the recorded S2 ``Paper.json``; the recordings
hold no multi-edge /references or /citations page, so those pages are assembled from those real
records, with ``isInfluential`` set here (every 4th reference and every 5th citing paper). ResNet's
references and citing works come from real OpenAlex records and their real ``referenced_works``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pandas as pd
import pytest

from fixtures.academic_apis import body
from fixtures.hash_models import materialize_task, metadata
from lyra_assets.citations.edges import cites_edges
from lyra_assets.documents import page_id_for
from lyra_core.citations import (
    FALLBACK_METHOD,
    CitationEdge,
    fallback_relevance,
    final_score,
    merge_candidates,
    stage1_score,
    top_unique,
)
from lyra_core.papers import CanonicalPaper, PaperRecord
from lyra_resources.sources.academic.openalex import OAWork
from lyra_resources.sources.academic.semantic_scholar import S2Paper
from lyra_resources.store.lyra_store import LyraStore

TURING_DOI = "10.1093/mind/lix.236.433"
RESNET_DOI = "10.1109/cvpr.2016.90"
QUESTION = "Research on machine intelligence and deep learning for image recognition"


# --------------------------------------------------------------------------- pure scoring


def test_stage_scores_follow_decision_5():
    assert stage1_score(True, 0.6) == pytest.approx(0.5 + 0.3)
    assert stage1_score(False, -0.2) == 0.0  # an unrelated abstract adds nothing, it does not subtract
    assert final_score(7, 0.8, True) == pytest.approx(0.5 * 0.7 + 0.3 * 0.8 + 0.2)
    assert final_score(7, 0.8, False) == pytest.approx(0.35 + 0.24)
    assert fallback_relevance(0.42) == pytest.approx(4.2) and fallback_relevance(-0.1) == 0.0
    assert top_unique([("a", 0.1), ("b", 0.9), ("a", 0.95), ("c", 0.9)], 2) == {"a", "b"}  # ties by id


def test_the_same_candidate_from_s2_and_openalex_is_merged(shared_data):
    """Real S2 and OpenAlex records of one paper (PNAS 2014) reported as a reference of a task
    paper by both APIs: one candidate, both sources, S2's influential flag kept."""
    s2 = S2Paper.model_validate(
        body(shared_data, "paperqa_decoded/test_doi_search_paper_attributes4___00.json")
    )
    oa = OAWork.model_validate(
        body(shared_data, "paperqa_decoded/test_doi_search_paper_attributes4___02.json")
    )
    task_paper = CanonicalPaper(
        paper_id="p_task", doi="10.1000/task", title="A task paper about tissue engineering"
    )
    edges = [
        CitationEdge(paper_id="p_task", direction="references", is_influential=True, record=s2.to_record()),
        CitationEdge(paper_id="p_task", direction="references", is_influential=False, record=oa.to_record()),
        # a paper never is its own candidate
        CitationEdge(
            paper_id="p_task",
            direction="cited_by",
            record=PaperRecord(source="s2", source_id="self", doi="10.1000/TASK", title="Same paper"),
        ),
    ]
    candidates, papers = merge_candidates(edges, [], [task_paper])
    assert len(candidates) == 1
    only = candidates[0]
    assert only.is_influential and sorted(s.split(":")[0] for s in only.sources) == ["openalex", "s2"]
    merged = papers[only.candidate_id]
    assert merged.doi == "10.1073/pnas.1414271111" and merged.abstract  # OpenAlex's abstract fills S2's gap


def test_cites_edges_point_from_citing_to_cited_page():
    pages = pd.DataFrame(
        {
            "page_id": ["pa", "pb", "pc"],
            "paper_id": ["A", "B", "C"],
            "kind": ["abstract", "abstract", "citation"],
        }
    )
    rows = pd.DataFrame(
        {
            "paper_id": ["A", "A", "A", "B"],
            "candidate_paper_id": ["B", "C", "X", "A"],
            "direction": ["references", "cited_by", "references", "cited_by"],
            "is_influential": [False, True, True, True],
        }
    )
    edges = cites_edges(rows, pages)
    assert set(
        zip(edges["source_page_id"], edges["target_page_id"], edges["is_influential"], strict=True)
    ) == {
        ("pa", "pb", True),  # A cites B, reported from both ends: one edge, influential if either says so
        ("pc", "pa", True),  # C cites A
    }  # X has no page: no edge
    assert set(edges["relation"]) == {"CITES"}


# --------------------------------------------------------------------------- the asset


def _turing(shared: Path) -> dict:
    return json.loads(
        (shared / "api_responses" / "s2_danielnsilva_semanticscholar" / "Paper.json").read_text()
    )


def _setup(shared: Path, server, tmp_path: Path) -> Path:
    """The task's corpus (Turing as S2 record, ResNet as OpenAlex record) and S2's edge pages."""
    turing = _turing(shared)
    refs = [{"isInfluential": i % 4 == 0, "citedPaper": r} for i, r in enumerate(turing["references"])]
    cites = [{"isInfluential": i % 5 == 0, "citingPaper": c} for i, c in enumerate(turing["citations"])]
    server.s2_edges[f"doi:{TURING_DOI}"] = {"references": refs, "citations": cites}
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    paper = {k: v for k, v in turing.items() if k not in ("citations", "references", "embedding", "tldr")}
    (corpus / "turing.json").write_text(json.dumps(paper))
    (corpus / "resnet.json").write_text(json.dumps(server.oa_works["W2194775991"]))
    return corpus


def _settings(write, ollama_url: str | None = None) -> None:
    llm = {"ollama_url": ollama_url} if ollama_url else {}
    write(
        sources={"live": "on"},
        llm=llm,
        citations={
            "references_per_paper": 100,
            "citations_per_paper": 60,
            "stage1_top_k": 30,
            "selected_per_paper": 10,
        },
    )


def _run(home: Path, corpus: Path):
    task = LyraStore.at(home).create_task(QUESTION, {"corpus": [str(corpus)]})
    result = materialize_task(
        home, task.id, "papers", "citation_expansions", "pages", "fragments", "citation_edges"
    )
    return task, result


def test_citation_expansions_without_an_llm(lyra_home, shared_data, fake_apis, lyra_settings, tmp_path):
    _settings(lyra_settings)
    corpus = _setup(shared_data, fake_apis, tmp_path)
    task, result = _run(lyra_home, corpus)
    store = LyraStore.at(lyra_home)
    papers = store.read_partition("papers", task.id)
    by_doi = dict(zip(papers["doi"], papers["paper_id"], strict=True))
    turing, resnet = by_doi[TURING_DOI], by_doi[RESNET_DOI]
    rows = store.read_partition("citation_expansions", task.id)

    # every paper of the task was expanded, in both directions, from the API that knows it
    assert set(rows["paper_id"]) == {turing, resnet}
    assert set(rows[rows["paper_id"] == turing]["direction"]) == {"references", "cited_by"}
    assert set(rows[rows["paper_id"] == resnet]["direction"]) == {"references", "cited_by"}
    turing_rows = rows[rows["paper_id"] == turing]
    assert all(s[0].startswith("s2:") for s in turing_rows["sources"])
    assert all(s[0].startswith("openalex:W") for s in rows[rows["paper_id"] == resnet]["sources"])
    assert (
        turing_rows["is_influential"].any() and not rows[rows["paper_id"] == resnet]["is_influential"].any()
    )
    resnet_refs = set(
        rows[(rows["paper_id"] == resnet) & (rows["direction"] == "references")]["candidate_paper_id"]
    )
    assert len(resnet_refs) >= 3  # the references the recordings hold
    assert rows.duplicated(["paper_id", "candidate_paper_id", "direction"]).sum() == 0

    # stage 1 on every candidate with an abstract, stage 2 on the top 30, 10 selected per paper
    judged = rows[rows["stage1_score"].notna()]
    assert (
        judged["stage1_score"]
        - (0.5 * judged["is_influential"] + 0.5 * judged["embed_similarity"].clip(0, 1))
    ).abs().max() < 1e-6
    assert rows[rows["stage1_score"].isna()]["stage2_method"].isna().all()  # no abstract, no judgement
    for _, group in rows.groupby("paper_id"):
        scored = group[group["final_score"].notna()]
        assert scored["candidate_paper_id"].nunique() <= 30
        chosen = scored[scored["selected"]]
        assert 0 < chosen["candidate_paper_id"].nunique() <= 10
        if len(chosen) < len(scored):
            assert chosen["final_score"].min() >= scored[~scored["selected"]]["final_score"].max()
    assert set(judged[judged["final_score"].notna()]["stage2_method"]) == {FALLBACK_METHOD}
    scored = rows[rows["final_score"].notna()]
    assert (scored["llm_score"] - 10 * scored["question_similarity"].clip(0, 1)).abs().max() < 1e-3
    expected = 0.5 * scored["llm_score"] / 10 + 0.3 * scored["stage1_score"] + 0.2 * scored["is_influential"]
    assert (scored["final_score"] - expected).abs().max() < 1e-6
    meta = metadata(result, "citation_expansions")
    assert meta["stage2_methods"] == {FALLBACK_METHOD: len(scored)}

    # OpenAlex references were fetched 50 ids at a time, never one call per reference
    id_calls = [
        p["filter"]
        for m, path, p in fake_apis.requests
        if path == "/openalex/works" and p.get("filter", "").startswith("openalex_id:")
    ]
    assert id_calls and max(len(c.split("|")) for c in id_calls) <= 50
    assert not [path for m, path, p in fake_apis.requests if path.startswith("/openalex/works/W")]

    # the selected papers became citation pages with fragments, linked by CITES edges
    selected = set(rows[rows["selected"]]["candidate_paper_id"]) - {turing, resnet}
    pages = store.read_partition("pages", task.id)
    citation_pages = pages[pages["kind"] == "citation"]
    assert set(citation_pages["paper_id"]) == selected
    fragments = store.read_partition("fragments", task.id)
    assert set(citation_pages["page_id"]) <= set(fragments["page_id"])
    edges = store.read_partition("citation_edges", task.id)
    turing_page = page_id_for(turing, "abstract")
    cited_by_turing = rows[
        (rows["paper_id"] == turing) & (rows["direction"] == "references") & rows["selected"]
    ]
    for cid in cited_by_turing["candidate_paper_id"]:
        assert (
            (edges["source_page_id"] == turing_page)
            & (edges["target_page_id"] == page_id_for(cid, "citation"))
        ).any()
    citing_turing = rows[(rows["paper_id"] == turing) & (rows["direction"] == "cited_by") & rows["selected"]]
    for cid in citing_turing["candidate_paper_id"]:
        assert (
            (edges["source_page_id"] == page_id_for(cid, "citation"))
            & (edges["target_page_id"] == turing_page)
        ).any()
    assert set(edges["relation"]) == {"CITES"}


class FakeOllama(BaseHTTPRequestHandler):
    """Ollama's /api/tags and /api/generate; every relevance answer is {"score": 7}."""

    def log_message(self, *args):
        pass

    def _send(self, payload):
        raw = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self):
        self._send({"models": [{"name": "qwen2.5:3b"}]})

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.prompts.append(request["prompt"])
        self._send({"model": request["model"], "response": '{"score": 7}', "done": True})


@pytest.fixture
def ollama():
    server = HTTPServer(("127.0.0.1", 0), FakeOllama)
    server.prompts = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def test_citation_expansions_with_an_llm(lyra_home, shared_data, fake_apis, lyra_settings, tmp_path, ollama):
    _settings(lyra_settings, f"http://127.0.0.1:{ollama.server_port}")
    corpus = _setup(shared_data, fake_apis, tmp_path)
    task, result = _run(lyra_home, corpus)
    rows = LyraStore.at(lyra_home).read_partition("citation_expansions", task.id)
    scored = rows[rows["final_score"].notna()]
    assert set(scored["stage2_method"]) == {"ollama:qwen2.5:3b"} and set(scored["llm_score"]) == {7.0}
    expected = 0.5 * 0.7 + 0.3 * scored["stage1_score"] + 0.2 * scored["is_influential"]
    assert (scored["final_score"] - expected).abs().max() < 1e-6
    # one LLM call per (paper, candidate); the prompt holds the question and both abstracts
    assert len(ollama.prompts) == len(scored.drop_duplicates(["paper_id", "candidate_paper_id"]))
    assert all(QUESTION in p and "Related paper abstract" in p for p in ollama.prompts)
    assert metadata(result, "citation_expansions")["stage2_methods"] == {"ollama:qwen2.5:3b": len(scored)}


def test_a_paper_found_by_both_apis_is_expanded(lyra_home, shared_data, fake_apis, lyra_settings):
    """The task's one paper (PNAS 2014) comes from both S2's and OpenAlex's real records, so its
    ``sources`` cell names both APIs when ``citation_expansions`` reads ``papers`` back from DuckDB.
    The recordings hold none of its references, so its S2 references page is assembled from four
    real S2 records of other papers; OpenAlex completes the one whose real record has an abstract."""
    _settings(lyra_settings)
    s2 = [
        body(shared_data, f"paperqa_decoded/test_doi_search_paper_attributes{i}___00.json") for i in range(5)
    ]
    oa = body(shared_data, "paperqa_decoded/test_doi_search_paper_attributes4___02.json")
    fake_apis.s2_search = {"total": 1, "offset": 0, "data": [s2[4]]}
    fake_apis.oa_search = {"meta": {"count": 1, "page": 1, "per_page": 50}, "results": [oa]}
    fake_apis.s2_edges[s2[4]["paperId"]] = {
        "references": [{"isInfluential": i == 3, "citedPaper": r} for i, r in enumerate(s2[:4])],
        "citations": [],
    }
    task = LyraStore.at(lyra_home).create_task(
        "Research on hypoxia and collagen cross-linking in engineered tissue"
    )
    result = materialize_task(lyra_home, task.id, "papers", "citation_expansions")
    assert result.success
    store = LyraStore.at(lyra_home)
    paper = store.read_partition("papers", task.id).iloc[0]
    assert sorted(s.split(":")[0] for s in paper["sources"]) == ["openalex", "s2"]
    rows = store.read_partition("citation_expansions", task.id)
    assert set(rows["paper_id"]) == {paper["paper_id"]} and len(rows) == 4
    assert set(rows["direction"]) == {"references"}
    # only the reference OpenAlex completed (with its abstract) could be judged; it is selected
    judged = rows[rows["stage1_score"].notna()]
    assert len(judged) == 1 and judged["selected"].all()
    cited = store.read_partition("citation_papers", task.id).set_index("paper_id")
    assert len(cited) == 4
    completed = cited.loc[judged["candidate_paper_id"].iat[0]]
    assert completed["doi"] == "10.1016/j.addr.2015.01.008" and completed["abstract"]
    assert sorted(s.split(":")[0] for s in completed["sources"]) == ["openalex", "s2"]
