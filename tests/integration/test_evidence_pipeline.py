"""A whole task through Dagster: claims, NLI edges, Bayesian scores and topics."""

import pytest
from dagster import DagsterInstance, materialize

from lyra_assets.definitions import CHECKS, TASK_RUN_ASSETS, build_resources
from lyra_assets.execution import run_control
from lyra_assets.partitions import TASKS_PARTITION
from lyra_core.scoring import Evidence, score_claim
from lyra_resources.models.inference import NLI_RELATION
from lyra_resources.settings.loading import load_settings
from lyra_resources.store.lyra_store import LyraStore

pytestmark = pytest.mark.slow

USER_CLAIM = "High-dose vitamin D lowers the risk of hip fracture."


def test_task_ends_in_a_scored_evidence_graph(lyra_home, small_corpus):
    store = LyraStore.at(lyra_home)
    task = store.create_task(
        "Does vitamin D supplementation reduce fracture risk?",
        {"corpus": [str(small_corpus)], "claims": [USER_CLAIM]},
    )
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task.id])
        result = materialize(
            [*TASK_RUN_ASSETS, *CHECKS],
            partition_key=task.id,
            resources=build_resources(lyra_home),
            instance=instance,
        )
    assert result.success
    checks = result.get_asset_check_evaluations()
    assert len(checks) == 2 and all(c.passed for c in checks)

    claims = store.read_partition("claims", task.id)
    user = claims[claims["origin"] == "user"]
    assert user["text"].tolist() == [USER_CLAIM] and user["adoption_status"].tolist() == ["adopted"]
    extracted = claims[claims["origin"] == "extracted"]
    assert len(extracted) > 0 and set(extracted["extractor"]) == {"local-rules"}
    assert set(claims["adoption_status"]) <= {"adopted", "not_adopted", "pending"}

    edges = store.read_partition("nli_edges", task.id)
    fragments = store.read_partition("fragments", task.id).set_index("fragment_id")
    assert edges["edge_id"].is_unique and set(edges["relation"]) <= {"SUPPORTS", "REFUTES", "NEUTRAL"}
    assert set(edges["claim_id"]) <= set(claims["claim_id"])
    # a claim is never judged by a fragment of the page it was extracted from
    for claim in extracted.itertuples():
        if claim.adoption_status == "adopted":
            own_page = fragments.loc[claim.source_fragment_id, "page_id"]
            judged = edges[edges["claim_id"] == claim.claim_id]
            assert own_page not in set(fragments.loc[judged["fragment_id"], "page_id"])
    # top-k pairing, never all pairs (the hypothesis also meets the top papers' result passages)
    of_hypothesis = edges["claim_id"].isin(set(claims.loc[claims["origin"] == "hypothesis", "claim_id"]))
    assert edges[~of_hypothesis].groupby("claim_id").size().max() <= 8
    cfg = load_settings().evidence  # text far from the claim decides nothing, whatever the judge's label
    is_far = edges["similarity"] < cfg.min_similarity
    far = edges[is_far]
    assert set(edges[is_far & ~of_hypothesis]["relation"]) <= {"NEUTRAL"}
    # but a top paper's result passage about the hypothesis's exposure and outcome may vote
    far_votes = edges[is_far & of_hypothesis & (edges["relation"] != "NEUTRAL")]
    assert far_votes["exposure_matched"].all() and far_votes["outcome_matched"].all()
    assert (edges["relation"] == edges["nli_label"].map(NLI_RELATION)).sum() >= len(edges) - len(far)
    # the user's claim meets the RR 0.70 sentence of the trial that supports it
    user_edges = edges[edges["claim_id"] == user["claim_id"].iat[0]]
    supporting = fragments.loc[user_edges[user_edges["relation"] == "SUPPORTS"]["fragment_id"], "text"]
    assert any("reduced hip fracture risk" in t for t in supporting)

    scores = store.read_partition("claim_scores", task.id).set_index("claim_id")
    adopted = set(claims.loc[claims["adoption_status"] == "adopted", "claim_id"])
    assert set(scores.index) == adopted
    for claim_id, group in edges.groupby("claim_id"):  # scores come from edges and nothing else
        expected = score_claim(
            [
                Evidence(relation=r.relation, nli_confidence=r.nli_confidence, page_id=r.page_id)
                for r in group.itertuples()
            ],
            True,
            load_settings().evidence.scoring_rule(),
        )
        assert scores.loc[claim_id, "confidence"] == expected.confidence
        assert scores.loc[claim_id, "verdict"] == expected.verdict
    # the RR 0.70 trial supports it; the trial of 36,282 women whose words state a null ("did not reduce")
    # refutes it as surely: one rule for nulls (docs/direction.md#nulls) makes the claim contested
    mine = scores.loc[user["claim_id"].iat[0]]
    assert mine["verdict"] == "contested" and 0.4 < mine["confidence"] < 0.6

    topics = store.read_partition(
        "claim_topics", task.id
    )  # the question's own hypothesis is no topic's claim
    topical = set(
        claims.loc[(claims["adoption_status"] == "adopted") & (claims["origin"] != "hypothesis"), "claim_id"]
    )
    assert sum(topics["claim_count"]) == len(topical)
    assert sorted(c for ids in topics["claim_ids"] for c in ids) == sorted(topical)


def test_unchanged_rerun_reuses_every_nli_judgement(lyra_home, small_corpus):
    store = LyraStore.at(lyra_home)
    task = store.create_task(
        "vitamin D and fractures", {"corpus": [str(small_corpus)], "claims": [USER_CLAIM]}
    )
    assert run_control.run_task(task.id, lyra_home).success
    cached = store.fetch_df("SELECT count(*) AS n FROM nli_cache")["n"].iat[0]
    edges = store.read_partition("nli_edges", task.id)
    assert run_control.run_task(task.id, lyra_home).success
    assert store.fetch_df("SELECT count(*) AS n FROM nli_cache")["n"].iat[0] == cached
    assert store.read_partition("nli_edges", task.id).equals(edges)
    # judgements were cached (a hypothesis' result passages that the gates decide need none, so edges may outnumber
    # them)
    assert cached > 0 and len(edges) > 0


def test_edges_carry_trust_levels_and_domains_are_verified(lyra_home, tmp_path):
    # Semantic Scholar-shaped records with real-looking addresses, so pages have different domains.
    import json

    rows = [
        {
            "paperId": "a1",
            "title": "Vitamin D supplementation and hip fracture in older adults",
            "abstract": "In a randomized trial, vitamin D supplementation reduced hip fracture risk by 30%. "
            "Falls were also reduced.",
            "externalIds": {"DOI": "10.1000/vitd.1"},
        },
        {
            "paperId": "b2",
            "title": "Vitamin D blog post about fractures",
            "abstract": "Vitamin D supplementation increases fracture risk in older adults. Buy our supplements now.",
            "url": "https://spam.example/vitamin-d",
        },
        {
            "paperId": "c3",
            "title": "Encyclopedia entry on vitamin D and bone",
            "abstract": "Vitamin D helps the body absorb calcium. Deficiency is linked to weaker bones and fractures.",
            "url": "https://en.wikipedia.org/wiki/Vitamin_D",
        },
    ]
    corpus = tmp_path / "s2.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = LyraStore.at(lyra_home)
    task = store.create_task(
        "Does vitamin D supplementation reduce hip fracture risk?", {"corpus": [str(corpus)]}
    )
    assert run_control.run_task(task.id, lyra_home).success
    pages = store.read_partition("pages", task.id)
    assert set(pages["domain"]) == {"doi.org", "spam.example", "en.wikipedia.org"}
    edges = store.read_partition("nli_edges", task.id)
    levels = dict(zip(pages["domain"], [None] * len(pages), strict=True))
    levels.update({"doi.org": "primary", "spam.example": "unverified", "en.wikipedia.org": "low"})
    fragment_domain = store.fetch_df(
        "SELECT f.fragment_id, p.domain FROM fragments f JOIN pages p USING (task_id, page_id) WHERE task_id = ?",
        [task.id],
    ).set_index("fragment_id")["domain"]
    for e in edges.itertuples():
        assert e.source_trust_level == levels[fragment_domain[e.fragment_id]]
    verification = store.read_partition("domain_verification", task.id).set_index("domain")
    assert set(verification.index) <= {"doi.org", "spam.example", "en.wikipedia.org"}
    assert verification.loc["doi.org", "original_trust_level"] == "primary"
    assert set(verification["status"]) <= {"VERIFIED", "PENDING", "REJECTED", "BLOCKED", "UNCHANGED"}


def test_aims_and_methods_fragments_are_not_evidence():
    import pandas as pd

    from lyra_assets.evidence.pairs import findings_only
    from lyra_resources.models.inference import embedder

    texts = [
        "To investigate the effect of bracket-ligature combination on the amount of orthodontic space "
        "closure over three months. Randomized clinical trial with three parallel groups.",
        "Patients were randomized to one of three bracket-ligature combinations and followed for three months.",
        "The differences in the amount of space closure over three months between the three groups was very "
        "small and non-significant (P = 0.718).",
    ]
    fragments = pd.DataFrame(
        {"fragment_id": ["f0", "f1", "f2"], "page_id": ["p"] * 3, "position": [0, 1, 2], "text": texts}
    )
    kept, vectors, dropped = findings_only(
        fragments, embedder().encode(texts), load_settings().evidence.min_finding
    )
    assert kept["fragment_id"].tolist() == ["f2"] and dropped == 2 and len(vectors) == 1


@pytest.fixture(scope="module")
def small_direction_reader(tmp_path_factory):
    """A direction reader trained here on a few Evidence Inference spans: real weights, tiny recipe."""
    from fixtures.paths import SHARED_DATA
    from lyra_training.direction_model import DirectionRecipe, train_direction_reader

    data = SHARED_DATA / "nli_training"
    if not (data / "evidence_inference").is_dir():
        pytest.skip("Evidence Inference not found beside the repository")
    out = tmp_path_factory.mktemp("direction") / "reader"
    train_direction_reader(data, out, DirectionRecipe(limit=48, epochs=1, evaluate=False), threads=2)
    return out


def test_effect_claims_are_judged_from_their_parts_with_a_reason_on_every_edge(
    lyra_home, small_corpus, lyra_settings, small_direction_reader
):
    lyra_settings(models={"direction": str(small_direction_reader)})
    store = LyraStore.at(lyra_home)
    about_sleep = "Sleep deprivation reduces word-pair recall."
    task = store.create_task(
        "Does vitamin D supplementation reduce fracture risk?",
        {"corpus": [str(small_corpus)], "claims": [USER_CLAIM, about_sleep]},
    )
    assert run_control.run_task(task.id, lyra_home).success
    edges = store.read_partition("nli_edges", task.id)
    claims = store.read_partition("claims", task.id).set_index("claim_id")["text"]
    fragments = store.read_partition("fragments", task.id).set_index("fragment_id")["text"]
    assert edges["reason"].str.len().min() > 0
    user = edges[edges["claim_id"].map(claims) == USER_CLAIM]
    assert set(user["judged_by"]) == {"direction"} and set(user["claim_direction"]) == {"decrease"}
    rr = user[user["fragment_id"].map(fragments).str.contains("RR 0.70")]
    # the figures decide this one whatever the small reader says: a ratio whose CI lies below 1
    # (every window that holds the ratio's sentence reads it the same: two overlapping windows hold it)
    assert len(rr) and set(rr["passage_direction"]) == {"decreased"} and set(rr["relation"]) == {"SUPPORTS"}
    assert "RR 0.7, 0.58–0.86" in rr["effect_figures"].iat[0] and rr["reason"].iat[0].endswith("→ supports")
    assert bool(rr["exposure_matched"].iat[0]) and bool(rr["outcome_matched"].iat[0])
    # the sleep claim meets the fracture trial: not about its exposure and outcome, so no vote
    sleep = edges[edges["claim_id"].map(claims) == about_sleep]
    off_topic = sleep[sleep["fragment_id"].map(fragments).str.contains("fracture")]
    assert len(off_topic) and set(off_topic["relation"]) == {"NEUTRAL"}
    assert all(r.startswith("not about") for r in off_topic["reason"])
    # an extracted claim that states no effect is the cross-encoder's, and says so
    other = edges[edges["judged_by"] == "cross-encoder"]
    assert all("states no direction" in r for r in other["reason"])


def test_every_edge_carries_its_papers_design_and_size(lyra_home, small_corpus):
    from lyra_core.study_design import DESIGNS

    store = LyraStore.at(lyra_home)
    task = store.create_task(
        "Does vitamin D supplementation reduce fracture risk?",
        {"corpus": [str(small_corpus)], "claims": [USER_CLAIM]},
    )
    assert run_control.run_task(task.id, lyra_home).success
    edges = store.fetch_df(
        "SELECT e.*, f.text, p.title FROM nli_edges e JOIN fragments f USING (task_id, fragment_id) "
        "JOIN pages p ON p.task_id = e.task_id AND p.page_id = e.page_id WHERE e.task_id = ?",
        [task.id],
    )
    assert len(edges) and set(edges["study_design"]) <= set(DESIGNS)
    # the trial of 36,282 women: its design from "this trial", its size from the abstract, on every edge of its page
    trial = edges[edges["title"] == "Calcium and vitamin D in postmenopausal women"]
    assert len(trial) and set(trial["study_design"]) == {"rct"} and set(trial["sample_size"]) == {36282}
    assert set(trial["design_cue"]) == {"trial"}
    # a passage's figures are on its edges whichever judge read it
    rr = edges[edges["text"].str.contains("RR 0.70")]
    assert len(rr) and all("RR 0.7" in f for f in rr["effect_figures"])
