"""The Ollama client against a local HTTP server that answers as Ollama's API does."""

import json
import logging
import threading
from http.server import HTTPServer

import pandas as pd
import pytest

from fixtures.json_http import JsonHandler
from lyra_assets.evidence.claims import LOCAL_EXTRACTOR, candidates_from
from lyra_resources.models.llm import ExtractedClaims, LlmError, OllamaLlm

log = logging.getLogger("test")


class FakeOllama(JsonHandler):
    """/api/tags lists one model; /api/generate answers from the queue in ``server.answers``."""

    def _send(self, status, payload):
        self.send_json(status, payload)

    def do_GET(self):
        if self.path == "/api/tags":
            self._send(200, {"models": [{"name": "qwen2.5:3b", "size": 1929912432}]})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(request)
        answer = self.server.answers.pop(0) if self.server.answers else '{"claims": []}'
        self._send(
            200,
            {
                "model": request["model"],
                "created_at": "2026-01-01T00:00:00Z",
                "response": answer,
                "done": True,
            },
        )


@pytest.fixture
def ollama():
    server = HTTPServer(("127.0.0.1", 0), FakeOllama)
    server.answers, server.requests = [], []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()


def client(server) -> OllamaLlm:
    return OllamaLlm(base_url=f"http://127.0.0.1:{server.server_port}", model="qwen2.5:3b", timeout_s=5)


FRAGMENTS = pd.DataFrame(
    {
        "fragment_id": ["f1", "f2"],
        "page_id": ["p1", "p2"],
        "text": [
            "Vitamin D reduced hip fractures by 30% (RR 0.70, 95% CI 0.58-0.86).",
            "Calcium did not reduce fracture risk in postmenopausal women.",
        ],
    }
)


def test_available_and_structured_generation(ollama, monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    llm = client(ollama)
    assert llm.available() == (True, "ollama:qwen2.5:3b")
    ollama.answers.append('{"claims": [{"text": "Vitamin D reduces hip fractures in older adults."}]}')
    assert llm.extract_claims("vitamin D?", "passage") == ["Vitamin D reduces hip fractures in older adults."]
    sent = ollama.requests[-1]
    assert sent["format"] == ExtractedClaims.model_json_schema() and sent["stream"] is False
    assert "Research question: vitamin D?" in sent["prompt"]


def test_a_bad_answer_is_an_error_and_that_fragment_falls_back(ollama, monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    llm = client(ollama)
    ollama.answers.append("not json at all")
    with pytest.raises(LlmError, match="/api/generate"):
        llm.extract_claims("q", "p")
    ollama.answers += [
        '{"claims": [{"text": "Vitamin D lowers the risk of hip fracture."}]}',
        '{"claims": [{"bad": 1}]}',
    ]
    candidates, method = candidates_from(FRAGMENTS, "vitamin D and fractures", llm, log)
    assert method == "ollama:qwen2.5:3b"
    by_fragment = {c.fragment_id: c for c in candidates}
    assert by_fragment["f1"].extractor == "ollama:qwen2.5:3b"
    assert by_fragment["f2"].extractor == LOCAL_EXTRACTOR  # its answer did not validate


def test_without_a_server_the_local_extractor_is_used(monkeypatch):
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    llm = OllamaLlm(base_url="http://127.0.0.1:9", timeout_s=1)
    available, reason = llm.available()
    assert not available and "no Ollama server" in reason
    candidates, method = candidates_from(FRAGMENTS, "vitamin D and fractures", llm, log)
    assert method == LOCAL_EXTRACTOR and {c.extractor for c in candidates} == {LOCAL_EXTRACTOR}
    assert OllamaLlm(provider="none").available()[0] is False
