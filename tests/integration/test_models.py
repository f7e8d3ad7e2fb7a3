"""The shipped and packaged models load offline and behave."""

import os

import numpy as np
import pytest

from lyra_resources.models import model_files as models
from lyra_resources.models.inference import NliModel, embedder, nli_model
from lyra_resources.models.model_files import DEFAULT_NLI_DIR, ModelError, read_temperature

pytestmark = pytest.mark.slow


def test_loading_is_offline():
    assert os.environ.get("HF_HUB_OFFLINE") == "1"


def test_embedder_weights_are_verified_and_similar_sentences_are_close():
    path = models.packaged_embedder_dir()
    assert models.file_sha256(path / "model.safetensors").startswith(models.EMBEDDER_SHA256_PREFIX)
    vectors = embedder().encode(
        [
            "Vitamin D lowers fracture risk.",
            "Vitamin D reduces the risk of fractures.",
            "The stock market fell sharply on Monday.",
        ]
    )
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3
    assert embedder() is embedder()  # loaded once per process


def test_shipped_verifier_gets_obvious_pairs_right():
    nli = nli_model()
    assert nli.path == str(DEFAULT_NLI_DIR) and nli.version.startswith("lyra-verifier-minilm-l6@")
    pairs = [
        ("A man is playing a guitar on stage.", "A man is playing music."),
        ("A man is playing a guitar on stage.", "Nobody is playing an instrument."),
        (
            "High-dose vitamin D reduced hip fracture risk by 30% (RR 0.70, 95% CI 0.58-0.86).",
            "Vitamin D supplementation reduces hip fracture risk.",
        ),
        (
            "High-dose vitamin D reduced hip fracture risk by 30% (RR 0.70, 95% CI 0.58-0.86).",
            "Vitamin D supplementation increases hip fracture risk.",
        ),
        # a methods sentence says nothing about the finding
        (
            "They were administered a semi-quantitative food frequency questionnaire at baseline.",
            "Vitamin D supplementation reduces hip fracture risk.",
        ),
    ]
    predictions = nli.predict(pairs)
    assert [p.relation for p in predictions] == ["SUPPORTS", "REFUTES", "SUPPORTS", "REFUTES", "NEUTRAL"]
    for p in predictions:
        assert 0.34 < p.confidence <= 1.0 and abs(sum(p.probs.values()) - 1.0) < 1e-4
    assert (
        nli.temperature == pytest.approx(read_temperature(DEFAULT_NLI_DIR)) and 0.25 <= nli.temperature <= 8
    )


def test_missing_model_says_how_to_get_it(tmp_path):
    with pytest.raises(ModelError, match="lyra models train-nli"):
        NliModel(tmp_path / "nowhere")


def test_embedding_many_texts_reports_each_batch_and_keeps_the_order():
    from lyra_resources.progress import reporting_to

    model = embedder()
    texts = [f"Sentence {i}: " + "vitamin D and bone density " * (i % 7) for i in range(70)]
    seen = []
    with reporting_to(seen.append):
        vectors = model.encode(texts)
        model.encode(texts[:5])  # a handful is not a stage
    assert [u.done for u in seen] == [0, 32, 64, 70, 70] and seen[-1].finished
    assert {u.label for u in seen} == {"embedding"}
    assert np.allclose(vectors, model._encode(texts), atol=1e-5)  # batched and sorted, yet in input order


def test_nli_reports_each_batch():
    calls = []
    predictions = nli_model().predict(
        [("Vitamin D lowered fractures.", "Vitamin D helps bones.")] * 40, on_batch=calls.append
    )
    assert len(predictions) == 40 and calls == [32, 8]


def test_loading_a_model_prints_no_library_progress_bar():
    import subprocess
    import sys

    code = (
        "from lyra_resources.models.inference import NliModel, Embedder; "
        "NliModel().load(); Embedder().encode(['a', 'b'])"
    )
    env = {k: v for k, v in os.environ.items() if k != "HF_HUB_DISABLE_PROGRESS_BARS"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "Loading weights" not in done.stdout + done.stderr and "it/s" not in done.stdout + done.stderr
