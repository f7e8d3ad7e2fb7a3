"""Lyra's table IO manager over a real DuckDB store, and the assets that take and return tables,
called with DataFrames as Dagster's own examples test theirs."""

from __future__ import annotations

import pandas as pd
import pytest
from dagster import (
    AssetKey,
    AssetSpec,
    DagsterInstance,
    Output,
    asset,
    build_asset_context,
    build_input_context,
    build_output_context,
    materialize,
    multi_asset,
)

from fixtures.hash_models import HashModels
from lyra_assets import documents
from lyra_assets.citations.edges import citation_edges
from lyra_assets.definitions import build_resources
from lyra_assets.evidence.topics import claim_topics
from lyra_assets.graph.publish import TaskStore, publishing_asset
from lyra_assets.partitions import TASKS_PARTITION, task_partitions
from lyra_assets.ranking import fragment_ranking
from lyra_assets.table_io import LYRA_TABLES, LyraTableIOManager, table_input
from lyra_resources.schema import TABLES
from lyra_resources.settings.loading import LyraSettings
from lyra_resources.store.generations import open_generation, publish_generation
from lyra_resources.store.lyra_store import LyraStore, StoreError
from lyra_resources.store.parquet_files import table_file

PAGES = pd.DataFrame(
    {
        "page_id": ["pa", "pb", "pc"],
        "paper_id": ["A", "B", "C"],
        "url": None,
        "domain": ["doi.org", "en.wikipedia.org", "spam.example"],
        "kind": ["abstract", "abstract", "citation"],
        "title": ["Paper A", "Paper B", "Paper C"],
    }
)


def expansions(*links: tuple[str, str, str, bool]) -> pd.DataFrame:
    """``citation_expansions`` rows: (paper, candidate, direction, influential), every other column empty."""
    columns = [c for c in TABLES["citation_expansions"].column_names if c != "task_id"]
    rows = [
        {"paper_id": p, "candidate_paper_id": c, "direction": d, "is_influential": i} for p, c, d, i in links
    ]
    return pd.DataFrame(rows, columns=columns)


def edges(*pairs: tuple[str, str, bool]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"source_page_id": s, "target_page_id": t, "relation": "CITES", "is_influential": i}
            for s, t, i in pairs
        ],
        columns=TABLES["citation_edges"].data_columns,
    )


def contexts(task_id: str, table: str):
    key = AssetKey(table)
    return build_output_context(asset_key=key, partition_key=task_id), build_input_context(
        asset_key=key, partition_key=task_id
    )


# --------------------------------------------------------------------------- the IO manager


def test_an_output_becomes_the_tasks_rows_and_loads_back_as_an_input(tmp_path):
    store = TaskStore(home=str(tmp_path / "home"))
    task, other = store.create_task("vitamin D and fractures"), store.create_task("sleep and memory")
    io = LyraTableIOManager(store, LyraSettings())
    store.replace_partition("citation_edges", other.id, edges(("x", "y", False)))
    written, read = contexts(task.id, "citation_edges")
    io.handle_output(written, edges(("pa", "pb", True), ("pc", "pa", False)))

    loaded = io.load_input(read)
    assert loaded.equals(store.read_partition("citation_edges", task.id))
    assert list(loaded.columns) == TABLES["citation_edges"].column_names and set(loaded["task_id"]) == {
        task.id
    }
    assert sorted(zip(loaded["source_page_id"], loaded["target_page_id"], strict=True)) == [
        ("pa", "pb"),
        ("pc", "pa"),
    ]
    assert len(store.read_partition("citation_edges", other.id)) == 1  # another task's rows stay
    on_disk = pd.read_parquet(table_file(store.layout.parquet, "citation_edges", task.id))
    assert len(on_disk) == 2  # a write in place switches the task's Parquet files at once
    logged = written.get_logged_metadata()
    assert logged["question"].value == task.query
    assert logged["parquet"].value == str(store.parquet_path("citation_edges", task.id))


def test_bad_outputs_and_keys_are_refused_in_one_line(tmp_path):
    store = TaskStore(home=str(tmp_path / "home"))
    task = store.create_task("q")
    io = LyraTableIOManager(store, LyraSettings())
    with pytest.raises(StoreError, match="returned dict, not the DataFrame"):
        io.handle_output(contexts(task.id, "citation_edges")[0], {"rows": []})
    with pytest.raises(StoreError, match="names no per-task table"):
        io.handle_output(contexts(task.id, "tasks")[0], pd.DataFrame())
    with pytest.raises(StoreError, match="not partitioned by task"):
        io.load_input(build_input_context(asset_key=AssetKey("pages")))
    with pytest.raises(StoreError, match="do not match its columns"):
        io.handle_output(contexts(task.id, "citation_edges")[0], pd.DataFrame({"page": ["p"]}))
    assert store.read_partition("citation_edges", task.id).empty


def test_inside_a_generation_the_staged_rows_load_and_readers_see_the_published_ones(tmp_path):
    home = tmp_path / "home"
    published = LyraStore(home=str(home))
    task = published.create_task("q")
    published.replace_partition("citation_edges", task.id, edges(("old1", "old2", False)))
    run_store = TaskStore(home=str(home))
    open_generation(run_store, task.id, "run-2")
    io = LyraTableIOManager(run_store, LyraSettings())
    written, read = contexts(task.id, "citation_edges")

    assert io.load_input(read)["source_page_id"].tolist() == ["old1"]  # the generation starts as a copy
    io.handle_output(written, edges(("pa", "pb", True)))
    assert io.load_input(read)["source_page_id"].tolist() == ["pa"]
    assert published.read_partition("citation_edges", task.id)["source_page_id"].tolist() == ["old1"]
    parquet = table_file(published.layout.parquet, "citation_edges", task.id)
    assert pd.read_parquet(parquet)["source_page_id"].tolist() == ["old1"]

    publish_generation(run_store, task.id, "run-2")
    assert published.read_partition("citation_edges", task.id)["source_page_id"].tolist() == ["pa"]
    assert pd.read_parquet(parquet)["source_page_id"].tolist() == ["pa"]


def test_a_publishing_run_shares_its_store_with_the_io_manager(tmp_path):
    """In a Dagster run with ``task_graph``, the IO manager writes into the generation the run's
    ``store`` opened: an asset after ``citation_edges`` loads its staged rows while a reader outside
    the run still sees the published ones, until ``task_graph`` swaps them in."""
    home = tmp_path / "home"
    outside = LyraStore(home=str(home))
    task = outside.create_task("q")
    outside.replace_partition(
        "citation_expansions",
        task.id,
        expansions(("A", "B", "references", True), ("A", "C", "cited_by", False)),
    )
    outside.replace_partition("pages", task.id, PAGES.iloc[:2])
    outside.replace_partition("citation_edges", task.id, edges(("old1", "old2", False)))

    @asset(name="pages", partitions_def=task_partitions, io_manager_key=LYRA_TABLES)
    def new_pages() -> pd.DataFrame:
        return PAGES

    seen = {}

    @asset(partitions_def=task_partitions, ins={"citation_edges": table_input(citation_edges)})
    def edge_reader(citation_edges: pd.DataFrame) -> None:
        seen["in the run"] = sorted(
            zip(citation_edges["source_page_id"], citation_edges["target_page_id"], strict=True)
        )
        seen["outside"] = outside.read_partition("citation_edges", task.id)["source_page_id"].tolist()

    steps = [new_pages, citation_edges, edge_reader]
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task.id])
        kept = AssetSpec("citation_expansions", partitions_def=task_partitions)  # not re-run: its staged copy
        result = materialize(
            [kept, *steps, publishing_asset(steps)],
            partition_key=task.id,
            instance=instance,
            resources=build_resources(home, LyraSettings()),
        )
    assert result.success
    assert seen == {"in the run": [("pa", "pb"), ("pc", "pa")], "outside": ["old1"]}
    published = outside.read_partition("citation_edges", task.id)
    assert sorted(zip(published["source_page_id"], published["target_page_id"], strict=True)) == [
        ("pa", "pb"),
        ("pc", "pa"),
    ]
    assert len(outside.read_partition("pages", task.id)) == 3
    metadata = result.asset_materializations_for_node("citation_edges")[0].metadata
    assert metadata["dagster/row_count"].value == 2 and metadata["question"].value == "q"
    assert metadata["influential"].value == 1 and "Paper C" in metadata["preview"].value


def test_a_multi_assets_tables_change_together_or_not_at_all(tmp_path):
    """A step's tables are written in one transaction once it has handed over all of them: a step
    that fails after handing over its first table leaves both tables as they were."""
    home = tmp_path / "home"
    store = LyraStore(home=str(home))
    task = store.create_task("q")
    store.replace_partition("pages", task.id, PAGES.iloc[:1])
    store.replace_partition("citation_edges", task.id, edges(("old1", "old2", False)))
    specs = [
        AssetSpec(name, partitions_def=task_partitions).with_io_manager_key(LYRA_TABLES)
        for name in ("pages", "citation_edges")
    ]

    def step(fail: bool):
        @multi_asset(specs=specs, partitions_def=task_partitions)
        def pages_and_edges():
            yield Output(PAGES, output_name="pages")
            if fail:
                raise RuntimeError("the step fails after its first table")
            yield Output(edges(("pa", "pb", True)), output_name="citation_edges")

        return pages_and_edges

    def run(fail: bool):
        with DagsterInstance.ephemeral() as instance:
            instance.add_dynamic_partitions(TASKS_PARTITION, [task.id])
            return materialize(
                [step(fail)],
                partition_key=task.id,
                instance=instance,
                raise_on_error=False,
                resources=build_resources(home, LyraSettings()),
            )

    assert not run(fail=True).success
    assert store.read_partition("pages", task.id)["page_id"].tolist() == ["pa"]
    assert store.read_partition("citation_edges", task.id)["source_page_id"].tolist() == ["old1"]
    assert run(fail=False).success
    assert len(store.read_partition("pages", task.id)) == 3
    assert store.read_partition("citation_edges", task.id)["source_page_id"].tolist() == ["pa"]


# --------------------------------------------------------------------------- the assets, called with frames


def test_citation_edges_from_frames():
    result = citation_edges(
        citation_expansions=expansions(
            ("A", "B", "references", False), ("B", "A", "cited_by", True), ("A", "X", "references", True)
        ),
        pages=PAGES,
    )
    assert result.value.equals(edges(("pa", "pb", True)))  # reported from both ends: one edge; X has no page
    assert result.metadata["influential"].value == 1
    assert "Paper A" in result.metadata["preview"].value


def test_claim_topics_groups_the_adopted_claims_of_its_input_frames(tmp_path):
    claims = pd.DataFrame(
        {
            "task_id": "t1",
            "claim_id": ["c4", "c1", "c2", "c3", "c5", "c6"],
            "text": [
                "Vitamin D supplementation reduces hip fracture risk in older women",
                "Vitamin D supplementation reduces fracture risk in older adults",
                "Sleep deprivation impairs memory consolidation in students",
                "Does vitamin D reduce fracture risk?",
                "Vitamin D reduces fracture risk",
                "Vitamin D supplementation lowers fracture risk",
            ],
            "origin": ["extracted", "extracted", "extracted", "hypothesis", "extracted", None],
            "adoption_status": ["adopted", "adopted", "adopted", "adopted", "not_adopted", "adopted"],
        }
    )
    scores = pd.DataFrame(
        {"task_id": "t1", "claim_id": ["c1", "c3"], "alpha": [9.0, 9.0], "beta": [9.0, 9.0]}
    )
    context = build_asset_context(partition_key="t1")
    result = claim_topics(
        context,
        claims=claims,
        claim_scores=scores,
        store=LyraStore(home=str(tmp_path / "home")),
        models=HashModels(embedder_name="test-hash"),
        settings=LyraSettings(),
    )
    frame = result.value
    assert list(frame.columns) == TABLES["claim_topics"].data_columns
    # the hypothesis, a claim not adopted and one without an origin are no topic's
    assert sorted(c for ids in frame["claim_ids"] for c in ids) == ["c1", "c2", "c4"]
    by_claim = {c: row for row in frame.itertuples(index=False) for c in row.claim_ids}
    assert by_claim["c1"].has_contradiction  # its strong votes on both sides, from the scores frame
    assert by_claim["c1"].topic_id == by_claim["c4"].topic_id != by_claim["c2"].topic_id
    assert not by_claim["c2"].has_contradiction  # unscored: the prior Beta(1, 1)
    assert result.metadata["dagster/row_count"].value == len(frame)


def test_fragment_ranking_ranks_its_input_fragments(tmp_path):
    home = tmp_path / "home"
    store = LyraStore(home=str(home))
    task = store.create_task("vitamin D fracture risk", {"corpus": []})
    fragments = pd.DataFrame(
        {
            "task_id": task.id,
            "fragment_id": ["f1", "f2", "f3"],
            "page_id": ["pa", "pb", "pc"],
            "text": [
                "Vitamin D lowered fracture risk in older women.",
                "Sleep loss impairs memory.",
                "Vitamin D and fracture risk: a spam page on vitamin D fracture risk.",
            ],
        }
    )
    resources = {**build_resources(home, LyraSettings()), "models": HashModels(embedder_name="test-hash")}
    del resources[LYRA_TABLES]
    result = fragment_ranking(
        build_asset_context(partition_key=task.id),
        task=task,
        fragments=fragments,
        pages=PAGES,
        **{k: resources[k] for k in ("store", "models", "literature", "trust", "settings")},
    )
    frame = result.value
    assert list(frame.columns) == TABLES["fragment_ranking"].data_columns
    assert frame["fragment_id"].tolist()[0] == "f1"  # the unverified domain's page weighs 0.3: f3 comes after
    ranks = dict(zip(frame["fragment_id"], frame["final_rank"], strict=True))
    assert ranks["f1"] == 1 and ranks["f3"] == 2 and pd.isna(ranks["f2"])  # f2 shares no query word
    assert store.read_partition("fragment_ranking", task.id).empty  # the asset writes nothing itself
    assert result.metadata["ranked"].value == 2


def test_pages_and_fragments_from_frames():
    """Every document the task reads becomes a page, and its text (a paper's abstract, a selected
    citation paper's, a fetched page's main text) its fragments."""
    papers = pd.DataFrame(
        {
            "paper_id": ["A", "B"],
            "doi": ["10.1/a", None],
            "pmid": None,
            "arxiv_id": None,
            "url": None,
            "title": ["Paper A", "Paper B"],
            "abstract": ["Vitamin D lowered fracture risk. Falls were fewer.", None],
        }
    )
    cited = pd.DataFrame(
        {
            "paper_id": ["C", "D"],
            "doi": None,
            "pmid": ["1", "2"],
            "arxiv_id": None,
            "url": None,
            "title": ["Paper C", "Paper D"],
            "abstract": ["Calcium had no effect on fractures.", "x"],
        }
    )
    chosen = expansions(("A", "C", "references", True), ("A", "D", "references", False)).assign(
        selected=[True, False]
    )
    identified = pd.DataFrame(
        {
            "paper_id": ["E", "A"],
            "doi": ["10.1/e", "10.1/a"],
            "pmid": None,
            "arxiv_id": None,
            "url": None,
            "title": ["Paper E", "Paper A again"],
            "abstract": ["  ", "Other text."],
        }
    )
    web_pages = pd.DataFrame(
        {
            "page_id": ["pw", "px"],
            "url": ["http://a.org/1", "http://b.org"],
            "final_url": [None, "http://b.org/final"],
            "domain": ["a.org", "b.org"],
            "status": ["ok", "http_404"],
            "title": ["A blog", "Gone"],
            "text": ["Exercise improved mood in adults.", "Not found."],
        }
    )
    made = documents.pages(
        papers=papers,
        citation_expansions=chosen,
        citation_papers=cited,
        identified_papers=identified,
        web_pages=web_pages,
    ).value
    assert sorted(zip(made["kind"], made["paper_id"].fillna("-"), made["url"], strict=True)) == [
        ("abstract", "A", "https://doi.org/10.1/a"),
        ("citation", "C", "https://pubmed.ncbi.nlm.nih.gov/1/"),
        ("web", "-", "http://a.org/1"),
    ]  # no abstract: B, E; not selected: D; not fetched: px
    cut = documents.fragments(
        pages=made,
        papers=papers,
        citation_papers=cited,
        identified_papers=identified,
        web_pages=web_pages,
        settings=LyraSettings(),
    ).value
    text_of = dict(zip(made["kind"], made["page_id"], strict=True))
    by_page = cut.groupby("page_id")["text"].apply(" ".join)
    assert (
        "Falls were fewer." in by_page[text_of["abstract"]]
        and "Other text" not in by_page[text_of["abstract"]]
    )
    assert by_page[text_of["citation"]] == "Calcium had no effect on fractures."
    assert by_page[text_of["web"]] == "Exercise improved mood in adults."
