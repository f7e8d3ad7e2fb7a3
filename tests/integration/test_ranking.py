"""The three-stage ranking math on fixed scores, and the fragment_ranking asset."""

import numpy as np
import pytest

from lyra_core.ranking import RankingConfig, final_order, fuse, minmax, rank_candidates


def test_minmax_and_fusion_weights():
    assert minmax(np.array([2.0, 4.0, 6.0])).tolist() == [0.0, 0.5, 1.0]
    assert minmax(np.array([3.0, 3.0])).tolist() == [1.0, 1.0]
    fused = fuse(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    assert fused.tolist() == pytest.approx([0.3, 0.7])


def test_stages_on_fixed_scores():
    bm25 = np.array([10.0, 8.0, 6.0, 0.0, 4.0])
    docs = np.array([[1, 0], [0, 1], [1, 1], [1, 0], [0.6, 0.8]], dtype=float)
    query = np.array([0.0, 1.0])
    out = rank_candidates(bm25, query, lambda idx: docs[idx], None, RankingConfig(bm25_top_k=3))
    # stage 1 keeps the three best BM25 docs; doc 3 (score 0) and doc 4 (rank 4) are out
    assert out["stage"].tolist() == [2, 2, 2, 0, 0]
    assert out["bm25_norm"][:3].tolist() == pytest.approx([1.0, 0.5, 0.0])
    assert out["embedding_score"][:3].tolist() == pytest.approx([0.0, 1.0, 1 / np.sqrt(2)])
    expected = [0.3 * 1.0 + 0.7 * 0.0, 0.3 * 0.5 + 0.7 * 1.0, 0.3 * 0.0 + 0.7 / np.sqrt(2)]
    assert out["fused_score"][:3].tolist() == pytest.approx(expected)
    assert out["final_rank"].tolist() == [3, 1, 2, 0, 0]
    assert np.isnan(out["fused_score"][4])


def test_reranker_orders_its_candidates_first_and_trust_multiplies():
    bm25 = np.array([5.0, 4.0, 3.0])
    docs = np.eye(3)
    query = np.array([1.0, 1.0, 1.0])
    seen = []

    def rerank(idx):
        seen.append(sorted(idx.tolist()))
        return np.array([{0: 0.2, 1: 0.9, 2: 0.5}[i] for i in idx])

    out = rank_candidates(bm25, query, lambda idx: docs[idx], rerank, RankingConfig(rerank_top_k=2))
    assert seen == [[0, 1]]  # only the two best fused candidates reach the reranker
    assert out["stage"].tolist() == [3, 3, 2]
    assert out["final_rank"].tolist() == [2, 1, 3]
    trusted = rank_candidates(
        bm25,
        query,
        lambda idx: docs[idx],
        rerank,
        RankingConfig(rerank_top_k=2),
        trust=np.array([5.0, 1.0, 1.0]),
    )
    assert trusted["final_rank"].tolist()[0] == 1  # weight 5 lifts doc 0 above doc 1 (0.2·5 > 0.9)


def test_stage3_blends_with_the_fused_score():
    bm25 = np.array([5.0, 4.0, 3.0])
    docs = np.eye(3)
    out = rank_candidates(
        bm25,
        np.ones(3),
        lambda idx: docs[idx],
        lambda idx: np.array([0.0, 1.0, 0.0])[idx],
        RankingConfig(rerank_top_k=2, rerank_weight=0.5),
    )
    fused = out["fused_score"]
    assert out["final_score"][:2].tolist() == pytest.approx([0.5 * fused[0], 0.5 + 0.5 * fused[1]])
    assert out["rerank_score"][:2].tolist() == [0.0, 1.0] and out["final_rank"].tolist() == [2, 1, 3]


def test_final_order_is_stable_on_ties():
    assert final_order(np.array([0.5, 0.5, 0.9]), [None, None, None]).tolist() == [2, 0, 1]


def test_no_bm25_match_ranks_nothing():
    out = rank_candidates(np.zeros(3), np.ones(2), lambda idx: np.ones((len(idx), 2)), None)
    assert out["final_rank"].tolist() == [0, 0, 0] and out["stage"].tolist() == [0, 0, 0]


def test_dense_candidates_join_bm25s_and_are_not_embedded_again():
    bm25 = np.array([4.0, 0.0, 0.0, 2.0])
    dense = np.array([0.1, 0.9, 0.2, 0.3])  # doc 1 shares no word with the query but is nearest
    embedded = []
    out = rank_candidates(
        bm25,
        np.ones(2),
        lambda idx: embedded.append(idx) or np.ones((len(idx), 2)),
        None,
        RankingConfig(bm25_top_k=1, dense_top_k=1),
        dense=dense,
    )
    assert embedded == [] and out["stage"].tolist() == [2, 2, 0, 0]
    assert out["embedding_score"][:2].tolist() == pytest.approx([0.1, 0.9])
    assert out["fused_score"][:2].tolist() == pytest.approx([0.3 + 0.07, 0.63])
    assert out["final_rank"].tolist() == [2, 1, 0, 0]
    alone = rank_candidates(
        bm25,
        np.ones(2),
        lambda idx: np.ones((len(idx), 2)),
        None,
        RankingConfig(bm25_top_k=1, dense_top_k=0),
        dense=dense,
    )
    assert alone["stage"].tolist() == [2, 0, 0, 0]


@pytest.mark.slow
def test_fragment_ranking_with_a_corpus_adapted_reranker(lyra_home, small_corpus, tmp_path):
    """Train a tiny reranker on the test corpus (two steps), name it in the models resource, and
    check stage 3 scores the best fused fragments of the task."""
    from dagster import DagsterInstance, materialize

    from lyra_assets.definitions import TASK_RUN_ASSETS, build_resources
    from lyra_resources.corpus.local_corpus import LocalCorpus
    from lyra_resources.models.local_models import LocalModels
    from lyra_resources.models.model_files import packaged_embedder_dir
    from lyra_resources.store.lyra_store import LyraStore
    from lyra_training.reranker import build_pairs, train_reranker

    corpus = LocalCorpus.open(small_corpus)
    pairs = build_pairs(corpus, max_queries=4, hard_negatives=1, min_abstract_chars=50)
    assert {p.label for p in pairs} == {0.0, 1.0}
    assert all(
        p.passage != next(r.abstract for r in corpus.records if r.title == p.query)
        for p in pairs
        if p.label == 0.0
    )  # negatives are other papers
    report = train_reranker(
        corpus,
        tmp_path / "rr",
        packaged_embedder_dir(),
        max_queries=4,
        hard_negatives=1,
        batch_size=8,
        num_threads=1,
        min_abstract_chars=50,
    )
    assert report.steps >= 1 and (tmp_path / "rr" / "config.json").exists()

    store = LyraStore.at(lyra_home)
    task = store.create_task("vitamin D and fracture risk", {"corpus": [str(small_corpus)]})
    resources = build_resources(lyra_home)
    current = resources["models"]
    resources["models"] = LocalModels(
        embedder_name=current.embedder_name,
        nli_path=current.nli_path,
        reranker_choice=str(tmp_path / "rr"),
        threads=1,
    )
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions("tasks", [task.id])
        result = materialize(
            TASK_RUN_ASSETS,
            partition_key=task.id,
            resources=resources,
            instance=instance,
            selection=["papers", "claim_scope", "pages", "fragments", "fragment_ranking"],
        )
    assert result.success
    ranking = store.read_partition("fragment_ranking", task.id)
    reranked = ranking[ranking["stage"] == 3]
    assert len(reranked) > 0 and reranked["rerank_score"].between(0, 1).all()
    assert ranking.loc[ranking["stage"] < 3, "rerank_score"].isna().all()
    meta = result.asset_materializations_for_node("fragment_ranking")[0].metadata
    assert "cross-encoder" in meta["reranker"].value


def test_qrels_files_read_beir_and_trec_and_skip_zero_judgements(tmp_path):
    from lyra_training.reranker import read_qrels

    beir = tmp_path / "train.tsv"
    beir.write_text("query-id\tcorpus-id\tscore\n1\t31715818\t1\n1\t999\t0\n3\t14717500\t1\n")
    trec = tmp_path / "train.qrels"
    trec.write_text("1 0 31715818 1\n3 0 14717500 2\n3 0 5 0\n")
    assert read_qrels(beir) == read_qrels(trec) == {"1": {"31715818"}, "3": {"14717500"}}
    bad = tmp_path / "bad.tsv"
    bad.write_text("1 31715818\n")
    with pytest.raises(ValueError, match="bad.tsv line 1"):
        read_qrels(bad)


@pytest.mark.slow
def test_a_reranker_learns_from_judged_queries(tmp_path, small_corpus):
    """Positives are the judged papers, negatives the best-ranked unjudged ones; ids that match
    nothing are one clear error. Trained from the NLI verifier (3 labels), the one-logit model loads."""
    from lyra_core.ranking import RankingConfig
    from lyra_resources.corpus.local_corpus import LocalCorpus
    from lyra_resources.corpus.search import CorpusSearch
    from lyra_resources.models.inference import Reranker
    from lyra_resources.models.local_models import LocalModels
    from lyra_resources.models.model_files import DEFAULT_NLI_DIR, packaged_embedder_dir
    from lyra_resources.settings.loading import load_settings
    from lyra_resources.store.lyra_store import LyraStore
    from lyra_training.reranker import labelled_pairs, train_labelled_reranker

    corpus = LocalCorpus.open(small_corpus)
    models = LocalModels.configured(tmp_path / "h", load_settings())
    search = CorpusSearch(
        corpus, store=LyraStore.at(tmp_path / "h"), models=models, reranker=None, config=RankingConfig()
    )
    queries = [("q1", "vitamin D and hip fracture"), ("q2", "sleep loss and memory")]
    relevant = {"q1": {"1"}, "q2": {"3"}}
    pairs = labelled_pairs(
        dict(queries),
        relevant,
        {"q1": ["1", "2", "4"], "q2": ["3", "1"]},
        dict(zip([r.source_id for r in corpus.records], search.texts, strict=True)),
        hard_negatives=1,
    )
    assert sorted((p.query, p.label) for p in pairs) == [
        ("sleep loss and memory", 0.0),
        ("sleep loss and memory", 1.0),
        ("vitamin D and hip fracture", 0.0),
        ("vitamin D and hip fracture", 1.0),
    ]
    assert {p.passage for p in pairs if p.label == 0 and p.query.startswith("vitamin")} == {search.texts[1]}
    report = train_labelled_reranker(
        search, queries, relevant, tmp_path / "rr", DEFAULT_NLI_DIR, hard_negatives=2, num_threads=1
    )
    assert report.queries == 2 and report.pairs == 6 and report.fit.steps == 1
    assert Reranker(tmp_path / "rr").score("vitamin D", ["a", "b"]).shape == (2,)
    with pytest.raises(ValueError, match="qrels' document ids"):
        train_labelled_reranker(search, queries, {"q1": {"nope"}}, tmp_path / "rr2", packaged_embedder_dir())
