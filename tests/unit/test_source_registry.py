"""The registry of live academic sources: the built-in ones in their order, what each declares,
and a throw-away source ("mirror", tests/fixtures/mirror_source.py) added through ``register``
being opened and asked by the same code the built-in sources go through (``open_sources`` and
``gather``), its API answered in memory through ``httpx.MockTransport``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
import yaml

from fixtures.mirror_source import BASE_ENV, NAME, answer, mirror_spec, real_item
from lyra_core.papers import PaperRecord, canonicalize
from lyra_resources.settings.services import SourcesSettings
from lyra_resources.sources.academic.clients import open_sources
from lyra_resources.sources.academic.gather import citation_links, complete_identifiers, search_live
from lyra_resources.sources.academic.registry import (
    AcademicSourceSpec,
    academic_sources,
    register,
    source_names,
    unregister,
)

ROOT = Path(__file__).resolve().parents[2]
MIRROR = "https://mirror.test"


@pytest.fixture
def mirror():
    spec = register(mirror_spec())
    yield spec
    unregister(spec.name)


def close(sources) -> None:
    async def all_of() -> None:
        for source in sources:
            await source.aclose()

    asyncio.run(all_of())


def test_the_built_in_sources_are_opened_in_their_order():
    assert source_names() == ["s2", "openalex"]
    env = {"LYRA_S2_BASE_URL": "http://127.0.0.1:9/graph/v1"}
    sources = open_sources(SourcesSettings(openalex_requests_per_second=7), None, env)
    try:
        assert [(s.name, s.label) for s in sources] == [("s2", "Semantic Scholar"), ("openalex", "OpenAlex")]
        assert sources[0].http.policy.base_url == "http://127.0.0.1:9/graph/v1"
        assert sources[1].http.policy.base_url == "https://api.openalex.org"
        assert sources[1].http.policy.requests_per_second == 7
    finally:
        close(sources)


def test_each_source_declares_the_settings_and_environment_it_reads():
    documented = (ROOT / "docs" / "settings.md").read_text()
    shipped = yaml.safe_load((ROOT / "config" / "settings.yaml").read_text())["sources"]
    claimed: list[str] = []
    for spec in academic_sources():
        assert set(spec.settings_keys) <= set(SourcesSettings.model_fields), spec.name
        assert set(spec.settings_keys) <= set(shipped), (
            f"{spec.name}: a key is missing from config/settings.yaml"
        )
        claimed += spec.settings_keys
        for key in spec.env_keys:
            assert f"`{key}`" in documented, f"{spec.name}: ${key} is not in docs/settings.md"
    assert len(claimed) == len(set(claimed))  # no key is read by two sources


def test_a_source_name_is_registered_once_and_is_a_plain_word(mirror):
    with pytest.raises(ValueError, match="^a live source named 's2' is registered already$"):
        register(AcademicSourceSpec(name="s2", policy=mirror.policy, client=mirror.client))
    with pytest.raises(ValueError, match="^a live source named 'mirror' is registered already$"):
        register(mirror_spec())
    for bad in ("Mirror", "local", "my source", ""):
        with pytest.raises(ValueError, match="a live source's name must be"):
            AcademicSourceSpec(name=bad, policy=mirror.policy, client=mirror.client)
    with pytest.raises(KeyError, match="s2"):
        unregister("s2")  # the built-in sources stay
    assert source_names() == ["s2", "openalex", NAME]


def test_a_registered_source_is_opened_and_gathered_from(mirror, shared_data):
    """Search, identifier completion and citation links reach the registered source beside
    S2 and OpenAlex (which know no paper here), with its records under its own name."""
    item = real_item(shared_data)
    cited = {**real_item(shared_data, "paperqa_decoded/test_bulk_doi_search__02.json"), "id": "m-cited"}
    links = {item["id"]: {"references": [cited], "cited_by": []}}

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.host == "mirror.test":
            status, body = answer(request.url.path, dict(request.url.params), [item, cited], links)
            return httpx.Response(status, json=body)
        if request.url.path.endswith("/paper/batch"):  # S2 answers null for each id it does not know
            return httpx.Response(200, json=[None] * len(json.loads(request.content)["ids"]))
        return httpx.Response(404, json={"error": "not here"})

    fast = SourcesSettings(s2_requests_per_second=100, openalex_requests_per_second=100)
    sources = open_sources(fast, None, {BASE_ENV: MIRROR}, transport=httpx.MockTransport(handle))
    assert [s.name for s in sources] == ["s2", "openalex", NAME]

    async def gather():
        found = await search_live(sources, "hypoxia and collagen cross-linking", 5)
        local = canonicalize(
            [PaperRecord(source="local", source_id="p1", title=item["title"], doi=item["doi"])]
        )
        completion = await complete_identifiers(local, sources)
        mine = canonicalize(found.records[NAME])
        linked = await citation_links(mine, sources, references=10, citations=10)
        return found, completion, mine, linked

    try:
        found, completion, mine, linked = asyncio.run(gather())
    finally:
        close(sources)
    assert [r.source_id for r in found.records[NAME]] == [item["id"], "m-cited"] and NAME in found.answered
    assert (
        [r.source for r in completion.records] == [NAME]
        and completion.resolved
        and NAME in completion.answered
    )
    assert completion.records[0].doi == item["doi"].lower()
    edges = linked.links[mine[0].paper_id]
    assert [(name, link.direction, link.record.source_id) for name, link in edges] == [
        (NAME, "references", "m-cited")
    ]
