"""Where training lives: ``lyra_training`` between ``lyra_resources`` (inference) and
``lyra_assets`` / ``lyra_tools``; the pure pieces of training in ``lyra_core``; the old training
modules gone from ``lyra_resources``; trained models under the home, the shipped ones loaded when
the home has none."""

from __future__ import annotations

import ast

import pytest

from fixtures.paths import REPO as ROOT


def _imports(package: str) -> dict[str, set[str]]:
    """Module file → top-level packages it imports (at any depth in the file)."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
        found[str(path.relative_to(ROOT))] = names
    return found


def test_training_never_imports_upward_and_nothing_below_imports_it():
    for module, names in _imports("lyra_training").items():
        assert not names & {"lyra_assets", "lyra_tools", "bench"}, module
    for package in ("lyra_core", "lyra_resources"):
        for module, names in _imports(package).items():
            assert "lyra_training" not in names, module
    for module, names in _imports("lyra_core").items():
        assert not names & {"torch", "transformers", "peft", "lyra_resources"}, module


def test_training_modules_stay_small():
    for path in (ROOT / "lyra_training").glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 400, path.name


@pytest.mark.parametrize(
    "old",
    ["nli_training", "nli_adapters", "reranker_training", "verifier_training", "verifier_data", "snli_data"],
)
def test_training_code_moved_out_of_resources(old):
    assert not (ROOT / "lyra_resources" / f"{old}.py").exists()  # moved, not copied


def test_claim_roles_training_moved_and_scoring_stayed():
    source = (ROOT / "lyra_resources" / "models" / "claim_roles.py").read_text(encoding="utf-8")
    assert "def train_claim_roles" not in source and "def pubmedqa_sentences" not in source
    assert "def claim_role_model" in source


def test_snli_base_is_the_homes_trained_one_else_the_shipped_one(tmp_path):
    from lyra_resources.models.model_files import DEFAULT_SNLI_DIR, snli_base_dir, trained_snli_dir

    home = tmp_path / "home"
    assert trained_snli_dir(home) == home / "models" / DEFAULT_SNLI_DIR.name
    assert snli_base_dir(home) == DEFAULT_SNLI_DIR == snli_base_dir(None)
    trained_snli_dir(home).mkdir(parents=True)
    assert snli_base_dir(home) == DEFAULT_SNLI_DIR  # an empty folder is not a model
    (trained_snli_dir(home) / "model.safetensors").write_bytes(b"")
    assert snli_base_dir(home) == trained_snli_dir(home)


def test_nli_model_asset_writes_under_the_home_by_default():
    from lyra_assets.models.training import NliTrainingConfig

    assert NliTrainingConfig(snli_dir="x").out_dir == ""  # empty: <home>/models/lyra-nli-minilm-l6
