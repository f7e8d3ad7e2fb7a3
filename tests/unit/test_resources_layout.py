"""``lyra_resources`` shows its groups as folders: a sub-package per concern, each saying in its
docstring what it holds, and only the few modules that every group shares at the top."""

from __future__ import annotations

import ast

from fixtures.paths import REPO

RESOURCES = REPO / "lyra_resources"
TOP_MODULES = {
    "__init__",
    "config_files",
    "dagster_resources",
    "environment",
    "files",
    "home",
    "progress",
    "task_input",
}
GROUPS = {"store", "corpus", "web", "models", "sources", "schema", "settings"}
DATA = {"model_weights", "__pycache__"}  # shipped weights (package data), not code


def test_only_the_shared_modules_sit_at_the_top():
    assert {p.stem for p in RESOURCES.glob("*.py")} == TOP_MODULES


def test_every_group_is_a_package_that_says_what_it_holds():
    folders = {p.name for p in RESOURCES.iterdir() if p.is_dir()} - DATA
    assert folders == GROUPS
    for name in GROUPS:
        docstring = ast.get_docstring(
            ast.parse((RESOURCES / name / "__init__.py").read_text(encoding="utf-8"))
        )
        assert docstring and len(docstring.split()) >= 10, name


def test_the_groups_re_export_nothing():
    for name in ("store", "corpus", "web", "models", "sources", "settings"):
        tree = ast.parse((RESOURCES / name / "__init__.py").read_text(encoding="utf-8"))
        assert not [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)], name


def test_the_shipped_weights_and_figures_stay_where_the_package_data_names_them():
    from lyra_resources.models import claim_roles, model_files

    assert model_files.WEIGHTS_DIR == RESOURCES / "model_weights"
    assert claim_roles.WEIGHTS_DIR.parent == RESOURCES / "model_weights"
    assert (model_files.DEFAULT_NLI_DIR / "model.safetensors").is_file()
    assert (RESOURCES / "judge_figures.json").is_file()
