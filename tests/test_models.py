"""The shipped and packaged models load offline and behave."""

import os

import numpy as np
import pytest

from lyra_resources import models
from lyra_resources.models import DEFAULT_NLI_DIR, ModelError, NliModel, embedder, nli_model

pytestmark = pytest.mark.slow


def test_loading_is_offline():
    assert os.environ.get("HF_HUB_OFFLINE") == "1"


def test_embedder_weights_are_verified_and_similar_sentences_are_close():
    path = models.packaged_embedder_dir()
    assert models.file_sha256(path / "model.safetensors").startswith(models.EMBEDDER_SHA256_PREFIX)
    vectors = embedder().encode(["Vitamin D lowers fracture risk.", "Vitamin D reduces the risk of fractures.",
                                 "The stock market fell sharply on Monday."])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3
    assert embedder() is embedder()  # loaded once per process


def test_shipped_nli_model_gets_obvious_pairs_right():
    nli = nli_model()
    assert nli.path == str(DEFAULT_NLI_DIR) and nli.version.startswith("lyra-nli-minilm-l6@")
    pairs = [
        ("A man is playing a guitar on stage.", "A man is playing music."),
        ("A man is playing a guitar on stage.", "Nobody is playing an instrument."),
        ("Two dogs run through a snowy field.", "Animals are outside."),
        ("Two dogs run through a snowy field.", "The dogs are sleeping indoors."),
        ("A woman is reading a book in a park.", "The woman is reading a novel by her favourite author."),
    ]
    predictions = nli.predict(pairs)
    assert [p.relation for p in predictions] == ["SUPPORTS", "REFUTES", "SUPPORTS", "REFUTES", "NEUTRAL"]
    for p in predictions:
        assert 0.34 < p.confidence <= 1.0 and abs(sum(p.probs.values()) - 1.0) < 1e-4


def test_missing_model_says_how_to_get_it(tmp_path):
    with pytest.raises(ModelError, match="lyra models train-nli"):
        NliModel(tmp_path / "nowhere")
