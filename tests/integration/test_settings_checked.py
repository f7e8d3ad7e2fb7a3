"""The settings, the environment variables that win over them and the models they name are checked
before a task exists, and a settings or domain policy file is read with bounds.

Every entry point that creates a task (``lyra run``, ``lyra verify``, ``lyra task run``, MCP
``create_task``, a watched task's schedule) calls ``check_task_input``, which checks them with
``lyra_resources.settings.checks``: a value that cannot work is one line naming the variable or the
settings file and its field, and no task, partition or run is left behind. A file named by
``$LYRA_SETTINGS`` or ``$LYRA_DOMAINS`` that is no regular file (a FIFO, ``/dev/zero``, a folder),
larger than 1 MiB, nested deeper than 32 levels or holding an alias bomb is one line too, at once,
with bounded memory. ``bench.fuzz_config`` holds the full set of hostile configuration; all of it
runs here."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
import yaml
from mcp import Client
from typer.testing import CliRunner

from bench import fuzz_config
from fixtures.corpus import SMALL_CORPUS, write_jsonl
from fixtures.paths import REPO as ROOT
from lyra_assets.execution.runs import open_instance, register_partition
from lyra_assets.partitions import TASKS_PARTITION
from lyra_resources.config_files import ConfigFileError, load_config_yaml, read_config_text
from lyra_resources.environment import LyraEnvironment
from lyra_resources.home import CONFIG_DIR
from lyra_resources.models.model_files import DEFAULT_DIRECTION_DIR, DEFAULT_NLI_DIR
from lyra_resources.store.lyra_store import LyraStore
from lyra_resources.task_input import TaskInputError, check_task_input
from lyra_tools import cli
from lyra_tools.cli import app
from lyra_tools.mcp.server import build_server

QUESTION = "Does vitamin D supplementation reduce fracture risk?"
CHECKED = [
    name
    for name in LyraEnvironment.variables()
    if name not in ("LYRA_HOME", "LYRA_STORE", "LYRA_POSTGRES_URL")
]


@pytest.fixture(autouse=True)
def clean_environment(tmp_path, monkeypatch) -> Path:
    """None of the variables under test set; a settings file of the test's own."""
    for name in CHECKED:
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "settings.yaml"
    path.write_text("corpus: []\n")
    monkeypatch.setenv("LYRA_SETTINGS", str(path))
    return path


@pytest.fixture
def home(tmp_path) -> Path:
    """A home that already holds one task with its partition, so "unchanged" means something."""
    home = tmp_path / "home"
    task = LyraStore.at(str(home)).create_task("an earlier question about sleep")
    with open_instance(home) as instance:
        register_partition(instance, task.id)
    return home


@pytest.fixture
def corpus(tmp_path) -> Path:
    return write_jsonl(tmp_path / "corpus.jsonl", SMALL_CORPUS)


def state(home: Path) -> tuple:
    with open_instance(home) as instance:
        runs = sorted(r.run_id for r in instance.get_runs())
        partitions = sorted(instance.get_dynamic_partitions(TASKS_PARTITION))
    return sorted(t.id for t in LyraStore.at(str(home)).list_tasks()), runs, partitions


def refused(home: Path, corpus: Path) -> str:
    """The one-line refusal of a task on ``corpus``."""
    with pytest.raises(TaskInputError) as caught:
        check_task_input(QUESTION, {"corpus": [str(corpus)]}, home)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 500, message
    return message


# -- environment values --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    fuzz_config.BAD_ENVIRONMENT,
    ids=[f"{v}={x!r}" for v, x, _ in fuzz_config.BAD_ENVIRONMENT],
)
def test_an_environment_value_that_cannot_work_is_refused_naming_the_variable(
    home, corpus, monkeypatch, variable, value, says
):
    monkeypatch.setenv(variable, value)
    message = refused(home, corpus)
    assert says in message, message
    if variable.endswith("API_KEY"):
        assert value.strip().splitlines()[-1] not in message  # a key is not shown


def test_values_that_work_are_accepted(home, corpus, monkeypatch):
    for variable, value in [
        ("LYRA_BROWSER_SEARCH", " ON "),
        ("LYRA_SOURCES_LIVE", "off"),
        ("S2_API_KEY", "abc-123_XYZ\n"),  # the reader strips it
        ("LYRA_S2_BASE_URL", "http://[::1]:8080/graph/v1"),
        ("LYRA_OPENALEX_BASE_URL", "https://openalex.example.org"),
        ("OLLAMA_HOST", "127.0.0.1:11434"),  # the reader adds http://
        ("LYRA_MAILTO", "me@example.org"),
    ]:
        monkeypatch.setenv(variable, value)
    assert check_task_input(QUESTION, {"corpus": [str(corpus)]}, home).query == QUESTION


# -- the models the settings name ----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(fuzz_config.BAD_SETTINGS))
def test_a_settings_value_that_cannot_work_is_refused_naming_the_file_and_field(
    home, corpus, clean_environment, name
):
    text, says = fuzz_config.BAD_SETTINGS[name]
    clean_environment.write_text(text)
    message = refused(home, corpus)
    assert says in message and str(clean_environment) in message, message


def test_models_that_are_models_are_accepted(home, corpus, clean_environment, tmp_path):
    saved = tmp_path / "my-embedder"
    saved.mkdir()
    (saved / "modules.json").write_text("[]")  # a sentence-transformers folder
    clean_environment.write_text(
        f"models:\n  embedder: {saved}\n  nli: {DEFAULT_NLI_DIR}\n  direction: {DEFAULT_DIRECTION_DIR}\n"
        "  reranker: auto\n"
    )
    assert check_task_input(QUESTION, {"corpus": [str(corpus)]}, home).query == QUESTION
    clean_environment.write_text("models: {direction: 'OFF', reranker: ' none '}\n")
    assert check_task_input(QUESTION, {"corpus": [str(corpus)]}, home).query == QUESTION


def test_lyra_run_with_a_url_that_does_not_parse_is_one_line_and_creates_nothing(home, monkeypatch):
    monkeypatch.setenv("LYRA_S2_BASE_URL", "http://[::1")  # no corpus: the live APIs would be probed
    before = state(home)
    result = CliRunner().invoke(app, ["run", QUESTION, "--home", str(home)], catch_exceptions=False)
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "$LYRA_S2_BASE_URL is not a usable URL" in lines[0], result.output
    assert state(home) == before


def test_mcp_create_task_refuses_a_model_that_is_no_model_and_creates_nothing(home, clean_environment):
    (home / "corpora").mkdir()
    corpus = write_jsonl(home / "corpora" / "small.jsonl", SMALL_CORPUS)  # under the MCP corpus roots
    clean_environment.write_text("models: {nli: /etc}\n")
    launched: list[str] = []
    server = build_server(home, launcher=lambda task_id, root: launched.append(task_id) or (0, root))
    before = state(home)

    async def call():
        async with Client(server, read_timeout_seconds=60) as client:
            return await client.call_tool(
                "create_task", {"query": QUESTION, "options": {"corpus": [str(corpus)]}}
            )

    result = anyio.run(call)
    assert result.is_error and "models.nli" in result.content[0].text and "no model" in result.content[0].text
    assert launched == [] and state(home) == before


def test_models_list_refuses_an_nli_setting_that_is_no_model(
    tmp_path, clean_environment, monkeypatch, capsys
):
    """Through the console script's entry point (``lyra_tools.cli.main``), which says a settings
    problem in one line: no version of /etc is listed (it was shown as ``etc@hub``)."""
    clean_environment.write_text("models: {nli: /etc}\n")
    monkeypatch.setattr(sys, "argv", ["lyra", "models", "list", "--home", str(tmp_path / "h")])
    with pytest.raises(SystemExit) as ended:
        cli.main()
    out = capsys.readouterr()
    assert ended.value.code != 0 and "etc@hub" not in out.out, out
    assert out.err.count("\n") == 1 and "models.nli" in out.err and "no model" in out.err, out.err
    assert not (tmp_path / "h").exists()


# -- settings and domain policy files read with bounds --------------------------------------------------


def test_the_shipped_configuration_is_within_the_bounds():
    for name in ("settings.yaml", "domains.yaml"):
        text = read_config_text(CONFIG_DIR / name)
        assert load_config_yaml(text) == yaml.safe_load(text)


@pytest.mark.parametrize("name", sorted(fuzz_config.HOSTILE_FILES))
def test_a_hostile_file_is_refused_before_it_is_built(tmp_path, name):
    text, says = fuzz_config.HOSTILE_FILES[name]
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ConfigFileError, match=says.replace("(", r"\(")):
        load_config_yaml(read_config_text(path))


def lyra_limited(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """``python -m lyra_tools.cli ARGS`` with at most 3 GiB of address space and two minutes."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    return subprocess.run(
        [sys.executable, "-m", "lyra_tools.cli", *args],
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        preexec_fn=limit,
    )


@pytest.mark.parametrize("variable", ["LYRA_SETTINGS", "LYRA_DOMAINS"])
@pytest.mark.parametrize(
    ("target", "says"), [("fifo", "a named pipe"), ("/dev/zero", "a device"), ("deep", "nests deeper")]
)
def test_a_settings_or_policy_file_that_is_a_fifo_a_device_or_too_deep_is_one_line(
    tmp_path, corpus, variable, target, says
):
    if target == "fifo":
        os.mkfifo(path := tmp_path / "fifo")
    elif target == "deep":
        (path := tmp_path / "deep.yaml").write_text("[" * 10_000)
    else:
        path = Path(target)
    home = tmp_path / "home"
    try:
        proc = lyra_limited(
            ["run", QUESTION, "--corpus", str(corpus), "--home", str(home)], {variable: str(path)}
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{variable}={path}: no answer in two minutes")
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode != 0 and len(lines) == 1 and lines[0].startswith("error: "), proc.stderr[-2000:]
    assert str(path) in lines[0] and says in lines[0] and "unexpected" not in lines[0], lines[0]
    assert not home.exists()


def test_every_hostile_configuration_of_the_fuzz_run_is_refused_in_one_line():
    outcomes = fuzz_config.run_config_cases(fuzz_config.config_cases(), timeout_s=120, log=lambda _line: None)
    failed = [f"{o.case.name}: {'; '.join(o.problems)}" for o in outcomes if o.problems]
    assert not failed, "\n".join(failed)
    assert all(o.code not in (0, None) for o in outcomes)
