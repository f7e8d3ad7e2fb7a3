"""`lyra verify`: a claims file checked before any task exists, each claim judged only against its
own papers through Dagster, and one JSON line per claim read back from the task's tables."""

import json
import re

import numpy as np
import pytest
from dagster import DagsterInstance, materialize
from typer.testing import CliRunner

from lyra_assets.definitions import TASK_RUN_ASSETS, build_resources
from lyra_assets.evidence.pairs import findings_only
from lyra_assets.execution.runs import open_instance, register_partition
from lyra_assets.partitions import TASKS_PARTITION
from lyra_core.claim_inputs import ClaimInput, ClaimsFileError, parse_claims
from lyra_core.evidence import select_scoped_pairs
from lyra_core.tasks import TaskOptions
from lyra_resources.models.inference import embedder
from lyra_resources.settings.loading import load_settings
from lyra_resources.store.lyra_store import LyraStore
from lyra_tools.cli import app

cli = CliRunner()

RESTRICTED = "High-dose vitamin D lowers the risk of hip fracture."
SEARCHED = "Vitamin D supplementation reduces fracture risk."
SLEEP = "Sleep loss impairs memory consolidation."
CLAIMS = [
    {"id": "r1", "claim": RESTRICTED, "papers": ["2"]},  # the calcium trial only, not doc 1 that states it
    {"claim": SEARCHED},  # id defaults to the line number: 2
    {"id": 7, "claim": SLEEP},
]


def jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def invoke(*args):
    return cli.invoke(app, [str(a) for a in args], catch_exceptions=False)


# -- the claims file ---------------------------------------------------------------------------------


def test_plain_text_claims_take_their_line_numbers_as_ids():
    claims = parse_claims(
        "# my claims\n\nSleep loss impairs memory consolidation.\n  Exercise   raises bone density. \n"
    )
    assert [(c.id, c.claim, c.papers) for c in claims] == [
        ("3", SLEEP, None),
        ("4", "Exercise raises bone density.", None),
    ]


def test_json_lines_keep_ids_and_paper_restrictions():
    claims = parse_claims("".join(json.dumps(r) + "\n" for r in CLAIMS))
    assert [(c.id, c.papers) for c in claims] == [("r1", ["2"]), ("2", None), ("7", None)]


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"claim": "Sleep loss impairs memory."}\n{"claim": "broken\n', "line 2 is not valid JSON"),
        ('{"claim": "Sleep loss impairs memory."}\n{"claim": "   "}\n', "line 2: claim: the claim is empty"),
        ('{"claim": "Sleep loss impairs memory."}\n["a list"]\n', "line 2 is not a JSON object"),
        (
            '{"id": "x", "claim": "Sleep loss impairs memory."}\n{"id": "x", "claim": "Exercise raises density."}\n',
            "line 2: id 'x' is already used on line 1",
        ),
        ("Sleep loss impairs memory.\nsleep loss  impairs memory.\n", "line 2 repeats the claim of line 1"),
        ('{"claim": "Sleep loss impairs memory.", "papers": []}\n', "line 1: papers: papers is empty"),
        ('{"text": "Sleep loss impairs memory."}\n', 'line 1 has no "claim" key'),
        ("\n# nothing\n", "holds no claim"),
    ],
)
def test_a_bad_claims_file_names_its_line(text, message):
    with pytest.raises(ClaimsFileError, match=re.escape(message)):
        parse_claims(text)


def test_task_options_hold_verify_claims_and_refuse_two_kinds_of_claims():
    options = TaskOptions(
        corpus=["/c"], verify_claims=parse_claims(json.dumps(CLAIMS[0])), papers_per_claim=3
    )
    again = TaskOptions.model_validate(json.loads(json.dumps(options.model_dump(exclude_defaults=True))))
    assert again == options and again.is_verify and not TaskOptions().is_verify
    with pytest.raises(ValueError, match="verify_claims only"):
        TaskOptions(verify_claims=[ClaimInput(id="1", claim=SLEEP)], claims=[SEARCHED])
    with pytest.raises(ValueError, match="given twice"):
        TaskOptions(verify_claims=[ClaimInput(id="1", claim=SLEEP), ClaimInput(id="1", claim=SEARCHED)])


def test_scoped_pairs_judge_every_fragment_of_the_claims_own_papers_and_nothing_else():
    claim_vectors = np.eye(2, 3)
    fragment_vectors = np.array([[1.0, 0, 0], [0.9, 0, 0], [0, 1.0, 0], [0.5, 0, 0], [0.2, 0, 0]])
    papers = ["pA", "pB", "pA", "pC", "pB"]
    positions = [1, 0, 0, 0, 1]
    pairs = select_scoped_pairs(
        claim_vectors,
        fragment_vectors,
        papers,
        positions,
        [{"pB": 1, "pA": 2}, {"pC": 1}],
        [3, 3],
        [False, False],
    )
    # named papers: paper B first (rank 1) in text order, then paper A, cut at 3; the similar pC never
    assert [j for j, _ in pairs[0]] == [1, 4, 2]
    assert [j for j, _ in pairs[1]] == [3] and pairs[1][0][1] == 0.0
    assert select_scoped_pairs(
        claim_vectors, fragment_vectors, papers, positions, [{}, {}], [5, 5], [False, False]
    ) == [[], []]
    # searched papers: the most similar fragments of the claim's own papers, never another paper's
    similar = select_scoped_pairs(
        claim_vectors,
        fragment_vectors,
        papers,
        positions,
        [{"pB": 1, "pA": 2}, {"pC": 1}],
        [2, 2],
        [True, True],
    )
    order = sorted([1, 4, 2, 0], key=lambda j: -float(claim_vectors[0] @ fragment_vectors[j]))
    assert [j for j, _ in similar[0]] == [j for j in order if papers[j] in ("pA", "pB")][:2]


# -- the papers of a verify task (no model needed) ---------------------------------------------------


def test_papers_are_the_union_of_each_claims_papers_and_claim_scope_says_whose(lyra_home, small_corpus):
    options = TaskOptions(
        corpus=[str(small_corpus)],
        verify_claims=parse_claims("".join(json.dumps(r) + "\n" for r in CLAIMS)),
        papers_per_claim=2,
    )
    task = LyraStore.at(lyra_home).create_task("verify", options.model_dump(exclude_defaults=True))
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task.id])
        result = materialize(
            TASK_RUN_ASSETS,
            partition_key=task.id,
            resources=build_resources(lyra_home),
            instance=instance,
            selection=["papers", "claim_scope", "pages", "fragments"],
        )
    assert result.success
    store = LyraStore.at(lyra_home)
    papers = store.read_partition("papers", task.id)
    doc_of = {p.paper_id: list(p.sources)[0].removeprefix("local:") for p in papers.itertuples()}
    scope = store.read_partition("claim_scope", task.id).sort_values(["input_id", "rank"])
    by_input = {i: [doc_of[p] for p in g["paper_id"]] for i, g in scope.groupby("input_id")}
    assert by_input["r1"] == ["2"]  # as named, though doc 1 matches it best
    assert by_input["2"][0] == "1" and len(by_input["2"]) == 2  # its own top 2 of the corpus
    assert by_input["7"] == ["3"]  # only the sleep paper shares its terms
    assert set(doc_of.values()) == {d for docs in by_input.values() for d in docs}
    shown = result.asset_materializations_for_node("paper_search")
    scope_metadata = next(m.metadata for m in shown if m.asset_key.to_user_string() == "claim_scope")
    assert scope_metadata["dagster/row_count"].value == len(scope)
    assert RESTRICTED[:40] in scope_metadata["preview"].value  # the claim's text, not its hash


# -- the command: bad input creates nothing ------------------------------------------------------------


def test_bad_claims_files_fail_in_one_line_and_create_nothing(tmp_path, small_corpus):
    home = tmp_path / "h"
    existing = LyraStore.at(home).create_task("an earlier task", {"corpus": [str(small_corpus)]})
    with open_instance(home) as instance:
        register_partition(instance, existing.id)

    def state():
        with open_instance(home) as instance:
            partitions = instance.get_dynamic_partitions(TASKS_PARTITION)
        return [t.id for t in LyraStore.at(home).list_tasks()], partitions

    before = state()
    undecodable = tmp_path / "latin1.txt"
    undecodable.write_bytes("Caf\xe9 au lait raises alertness.\n".encode("latin-1"))
    cases = [
        (undecodable, "cannot read the claims file"),
        (jsonl(tmp_path / "a.jsonl", [CLAIMS[0]]).parent / "missing.jsonl", "path not found"),
        (tmp_path / "b.jsonl", "b.jsonl: line 2 is not valid JSON"),
        (
            jsonl(tmp_path / "c.jsonl", [CLAIMS[2], {"claim": ""}]),
            "c.jsonl: line 2: claim: the claim is empty",
        ),
        (
            jsonl(
                tmp_path / "d.jsonl", [CLAIMS[0], {"id": "q", "claim": SLEEP, "papers": ["3", "999", "[x]"]}]
            ),
            "paper ids not in the corpus: claim q: 999, [x] (use the ids the corpus file gives",
        ),
    ]
    (tmp_path / "b.jsonl").write_text(json.dumps(CLAIMS[0]) + "\n{'claim': 'single quotes'}\n")
    for path, message in cases:
        result = invoke("verify", "--corpus", small_corpus, "--claims", path, "--home", home)
        assert result.exit_code == 1, result.output
        assert len(result.output.strip().splitlines()) == 1 and result.output.startswith("error: ")
        assert message in result.output, result.output
        assert state() == before
    assert not (home / "verify").exists()


# -- the command end to end (the real embedder and NLI model, through Dagster) -------------------------


def edges_with_papers(store, task_id):
    return store.fetch_df(
        "SELECT e.claim_id, e.relation, pg.paper_id FROM nli_edges e JOIN pages pg "
        "ON pg.task_id = e.task_id AND pg.page_id = e.page_id WHERE e.task_id = ?",
        [task_id],
    )


@pytest.mark.slow  # two task runs with the real models: about a minute on two busy cores
def test_verify_judges_each_claim_against_its_own_papers_and_writes_one_line_per_claim(
    tmp_path, small_corpus
):
    home = tmp_path / "h"
    claims = jsonl(tmp_path / "claims.jsonl", CLAIMS)
    result = invoke("verify", "--corpus", small_corpus, "--claims", claims, "--home", home)
    assert result.exit_code == 0, result.output
    task_id = re.search(r"task_[0-9a-f]{8}", result.output).group(0)
    path = home / "verify" / f"{task_id}.jsonl"
    assert f"Results: {path}" in result.output.replace("\n", "")
    assert "nli_edges" in result.output and "claim_scope" in result.output  # progress and row counts

    store = LyraStore.at(home)
    task = store.require_task(task_id)
    assert task.status == "completed" and TaskOptions.model_validate(task.options).is_verify
    claims_rows = store.read_partition("claims", task_id)
    assert set(claims_rows["origin"]) == {"user"} and len(claims_rows) == 3
    assert set(claims_rows["adoption_status"]) == {"adopted"}
    papers = store.read_partition("papers", task_id)
    doc_of = {p.paper_id: list(p.sources)[0].removeprefix("local:") for p in papers.itertuples()}
    edges = edges_with_papers(store, task_id)
    restricted = claims_rows.loc[claims_rows["text"] == RESTRICTED, "claim_id"].iat[0]
    mine = edges[edges["claim_id"] == restricted]
    assert len(mine) > 0 and {doc_of[p] for p in mine["paper_id"]} == {"2"}
    # every finding of a searched claim's papers is judged, not only the most similar few (aims and
    # methods fragments are no evidence: see nli_edges' findings_only)
    every = store.fetch_df(
        "SELECT f.*, pg.paper_id FROM fragments f JOIN pages pg ON pg.task_id = f.task_id "
        "AND pg.page_id = f.page_id WHERE f.task_id = ?",
        [task_id],
    )
    findings, _, _ = findings_only(
        every, embedder().encode(every["text"].tolist()), load_settings().evidence.min_finding
    )
    fragments = findings.groupby("paper_id").size()
    scope = store.read_partition("claim_scope", task_id)
    for claim_id, group in scope.groupby("claim_id"):
        judged = edges[edges["claim_id"] == claim_id]
        assert set(judged["paper_id"]) <= set(group["paper_id"])
        assert len(judged) == sum(fragments.get(p, 0) for p in group["paper_id"])

    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["id"] for r in lines] == ["r1", "2", "7"] and [r["claim"] for r in lines] == [
        RESTRICTED,
        SEARCHED,
        SLEEP,
    ]
    scores = store.read_partition("claim_scores", task_id).set_index("claim_id")
    for row in lines:
        assert set(row) == {
            "id",
            "claim",
            "claim_id",
            "verdict",
            "confidence",
            "uncertainty",
            "controversy",
            "evidence_count",
            "papers_judged",
            "supporting",
            "refuting",
        }
        assert row["verdict"] == scores.loc[row["claim_id"], "verdict"]
        assert row["confidence"] == pytest.approx(scores.loc[row["claim_id"], "confidence"], abs=1e-4)
        for side, relation in (("supporting", "SUPPORTS"), ("refuting", "REFUTES")):
            evidence = row[side]
            has = ((edges["claim_id"] == row["claim_id"]) & (edges["relation"] == relation)).any()
            assert (evidence is not None) == bool(has)
            if evidence:
                assert set(evidence) == {
                    "paper",
                    "paper_id",
                    "title",
                    "text",
                    "probability",
                    "edge_id",
                    "reason",
                }
                assert evidence["reason"]  # why the judge said so, in one line
                assert evidence["paper"] == doc_of[evidence["paper_id"]] and 0 <= evidence["probability"] <= 1
                assert evidence["text"] in set(store.read_partition("fragments", task_id)["text"])
    assert lines[0]["papers_judged"] == 1

    first = path.read_text()
    rerun = invoke("task", "run", task_id, "--home", home)  # the same file again, from the tables
    assert rerun.exit_code == 0, rerun.output
    assert path.read_text() == first


@pytest.mark.slow
def test_verify_a_plain_text_file_into_a_chosen_file(tmp_path, small_corpus):
    claims = tmp_path / "claims.txt"
    claims.write_text(f"{SLEEP}\n\n# skipped\n{SEARCHED}\n")
    out = tmp_path / "out" / "results.jsonl"
    out.parent.mkdir()  # --out names a file in a folder that exists, as every --out does
    result = invoke(
        "verify",
        "--corpus",
        small_corpus,
        "--claims",
        claims,
        "--out",
        out,
        "--papers-per-claim",
        1,
        "--home",
        tmp_path / "h",
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["claim"], r["papers_judged"]) for r in lines] == [("1", SLEEP, 1), ("4", SEARCHED, 1)]
    assert lines[0]["supporting"] is None or lines[0]["supporting"]["paper"] == "3"


# -- the results, read from the tables alone (no model needed) ------------------------------------------


def test_results_come_from_the_tables_and_prefer_per_class_probabilities(lyra_home):
    import pandas as pd

    from lyra_core.claims import claim_id_for
    from lyra_resources.schema import TABLES
    from lyra_tools.cli.verify import verify_results

    def rows(table, records):  # the columns a test does not care about stay empty
        columns = [c for c in TABLES[table].column_names if c != "task_id"]
        return pd.DataFrame([{c: r.get(c) for c in columns} for r in records], columns=columns)

    store = LyraStore.at(lyra_home)
    options = TaskOptions(
        corpus=["/c"],
        verify_claims=[ClaimInput(id="a", claim=SLEEP, papers=["3"]), ClaimInput(id="b", claim=SEARCHED)],
    )
    task = store.create_task("verify", options.model_dump(exclude_defaults=True))
    ca, cb = claim_id_for(task.id, SLEEP), claim_id_for(task.id, SEARCHED)
    store.replace_partition(
        "papers",
        task.id,
        rows(
            "papers",
            [{"paper_id": "p3", "title": "Sleep deprivation", "sources": ["local:3"], "search_rank": 1}],
        ),
    )
    store.replace_partition(
        "pages", task.id, rows("pages", [{"page_id": "g3", "paper_id": "p3", "kind": "abstract"}])
    )
    store.replace_partition(
        "fragments",
        task.id,
        rows(
            "fragments",
            [
                {"fragment_id": f"f{i}", "page_id": "g3", "position": i, "text": f"sentence {i}"}
                for i in range(3)
            ],
        ),
    )
    store.replace_partition(
        "claim_scope",
        task.id,
        rows("claim_scope", [{"claim_id": ca, "input_id": "a", "paper_id": "p3", "rank": 1}]),
    )
    store.replace_partition(
        "nli_edges",
        task.id,
        rows(
            "nli_edges",
            [
                {
                    "edge_id": f"e{i}",
                    "fragment_id": f"f{i}",
                    "claim_id": ca,
                    "relation": rel,
                    "nli_confidence": conf,
                    "page_id": "g3",
                }
                for i, (rel, conf) in enumerate([("SUPPORTS", 0.9), ("SUPPORTS", 0.6), ("REFUTES", 0.7)])
            ],
        ),
    )
    store.replace_partition(
        "claim_scores",
        task.id,
        rows(
            "claim_scores",
            [
                {
                    "claim_id": ca,
                    "verdict": "supported",
                    "confidence": 0.71234,
                    "uncertainty": 0.2,
                    "controversy": 0.1,
                    "evidence_count": 3,
                },
                {
                    "claim_id": cb,
                    "verdict": "unverified",
                    "confidence": 0.5,
                    "uncertainty": 0.29,
                    "controversy": 0.0,
                    "evidence_count": 0,
                },
            ],
        ),
    )

    first, second = verify_results(store, task.id)
    assert first["id"] == "a" and first["verdict"] == "supported" and first["confidence"] == 0.7123
    assert first["papers_judged"] == 1 and first["refuting"]["text"] == "sentence 2"
    assert first["supporting"] == {
        "paper": "3",
        "paper_id": "p3",
        "title": "Sleep deprivation",
        "text": "sentence 0",
        "probability": 0.9,
        "edge_id": "e0",
        "reason": None,
    }
    assert second == {
        "id": "b",
        "claim": SEARCHED,
        "claim_id": cb,
        "verdict": "unverified",
        "confidence": 0.5,
        "uncertainty": 0.29,
        "controversy": 0.0,
        "evidence_count": 0,
        "papers_judged": 0,
        "supporting": None,
        "refuting": None,
    }

    # where edges carry per-class probabilities, the strongest evidence is ranked by them
    def add_probabilities(conn):
        conn.execute("ALTER TABLE nli_edges ADD COLUMN IF NOT EXISTS p_supports DOUBLE")
        conn.execute("ALTER TABLE nli_edges ADD COLUMN IF NOT EXISTS p_refutes DOUBLE")
        conn.execute(
            "UPDATE nli_edges SET p_supports = CASE edge_id WHEN 'e1' THEN 0.95 ELSE 0.5 END, "
            "p_refutes = 0.66 WHERE task_id = ?",
            [task.id],
        )

    store.transaction(add_probabilities)
    first = verify_results(store, task.id)[0]
    assert (first["supporting"]["edge_id"], first["supporting"]["probability"]) == ("e1", 0.95)
    assert first["refuting"]["probability"] == 0.66
