"""bench.verification caches a model's logits under a key of the model itself."""

from bench.verification import model_key


def test_two_recipes_fold_models_never_share_cached_logits(tmp_path):
    plain, counterfactual = tmp_path / "plain" / "cv" / "fold0", tmp_path / "cf" / "cv" / "fold0"
    for folder, pairs in ((plain, 4161), (counterfactual, 5210)):
        folder.mkdir(parents=True)
        (folder / "stage.json").write_text(f'{{"pairs": {pairs}}}')
    assert model_key(plain).startswith("fold0_") and model_key(counterfactual).startswith("fold0_")
    assert model_key(plain) != model_key(counterfactual)
    before = model_key(plain)
    assert model_key(tmp_path / "plain" / "cv" / "fold0") == before  # the same model finds its cache again
    (plain / "stage.json").write_text('{"pairs": 4200}')  # retrained in place
    assert model_key(plain) != before
