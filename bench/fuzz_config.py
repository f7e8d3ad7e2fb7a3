"""Hostile configuration against the real ``lyra`` command: settings and domain policy files no one
should write, environment values that cannot work, and models the settings name that are no models.
Each call is a ``bench.fuzz_cli`` call (a subprocess, in a scratch folder with a home holding one
completed task) that must be refused before any task exists: exit code not 0, stderr one ``error:``
line that names the variable or the file (``says``), no traceback, no hang, nothing changed.

- files (``$LYRA_SETTINGS`` and ``$LYRA_DOMAINS`` each): 10,000 nested ``[``, an object nested
  10,000 deep, a block mapping 100 levels deep, a "billion laughs" of aliases, 5 MB, bytes that are
  not UTF-8, a folder, a named pipe (FIFO), ``/dev/zero``;
- environment values: ``$LYRA_BROWSER_SEARCH=yes``, ``$LYRA_SOURCES_LIVE=maybe``, API keys and
  ``$LYRA_MAILTO`` holding CR/LF or characters outside ASCII, URLs that do not parse (``http://[::1``),
  that name no host or another scheme, ``$OLLAMA_HOST`` with a space;
- models: ``models.embedder`` a missing folder or a Hugging Face id not in the local cache,
  ``models.nli: /etc`` (a folder that holds no model), a file, ``models.reranker`` a hub id.

    python -m bench.fuzz_config              # every case (~40 calls, about 3 s each)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from bench import fuzz_cli
from bench.fuzz_cli import Case

RUN = ["run", "vitamin D and fractures", "--corpus", "{dir}/corpus.jsonl", "--home", "{home}"]
_BOMB = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9 if prev else ['x'] * 9)}]\n"
    for prev, name in zip([None, *"abcdefg"], "abcdefgh", strict=True)
)
# name → (file text or bytes, what the error line says of it); "fifo" and "/dev/zero" are not files
HOSTILE_FILES: dict[str, tuple[str | bytes, str]] = {
    "deep_list.yaml": ("[" * 10_000, "nests deeper than"),
    "deep_object.yaml": ("a: " + "{a: " * 10_000 + "1" + "}" * 10_000 + "\n", "nests deeper than"),
    "deep_block.yaml": (
        "".join(" " * i + "a:\n" for i in range(100)) + " " * 100 + "1\n",
        "nests deeper than",
    ),
    "aliases.yaml": (_BOMB + "corpus: *h\n", "values (aliases expanded"),
    "huge.yaml": (("# " + "x" * 100 + "\n") * 15_000, "larger than"),  # 1.5 MB
    "latin1.yaml": (b"corpus: []\n# caf\xe9\n", "not UTF-8"),
}
SPECIAL = {"fifo": "a named pipe", "folder": "a folder", "/dev/zero": "a device"}
# (variable, value, what the error line says)
BAD_ENVIRONMENT = [
    ("LYRA_BROWSER_SEARCH", "yes", "$LYRA_BROWSER_SEARCH is 'yes'"),
    ("LYRA_SOURCES_LIVE", "maybe", "$LYRA_SOURCES_LIVE"),
    ("S2_API_KEY", "key\r\nX-Injected: 1", "$S2_API_KEY holds a line break"),
    ("S2_API_KEY", "clé", "$S2_API_KEY holds"),
    ("OPENALEX_API_KEY", "key\nmore", "$OPENALEX_API_KEY holds a line break"),
    ("LYRA_MAILTO", "me@example.org\r\nX: 1", "$LYRA_MAILTO holds a line break"),
    ("LYRA_S2_BASE_URL", "http://[::1", "$LYRA_S2_BASE_URL is not a usable URL"),
    ("LYRA_S2_BASE_URL", "ftp://mirror.example/graph/v1", "$LYRA_S2_BASE_URL is not a usable URL"),
    ("LYRA_OPENALEX_BASE_URL", "http://", "$LYRA_OPENALEX_BASE_URL is not a usable URL"),
    ("LYRA_OPENALEX_BASE_URL", "https://api.openalex.org\r\n", "$LYRA_OPENALEX_BASE_URL"),
    ("OLLAMA_HOST", "http://llm host:11434", "$OLLAMA_HOST is not a usable URL"),
    ("LYRA_PROFILE", "everywhere", "$LYRA_PROFILE"),
]
# settings file text → what the error line says
BAD_SETTINGS = {
    "embedder_missing.yaml": ("models: {embedder: /nonexistent/model}\n", "models.embedder"),
    "embedder_hub.yaml": ("models: {embedder: someone/not-downloaded-model}\n", "Hugging Face cache"),
    "nli_etc.yaml": ("models: {nli: /etc}\n", "models.nli"),
    "nli_file.yaml": ("models: {nli: /etc/hostname}\n", "a file, not a model folder"),
    "direction_folder.yaml": ("models: {direction: /tmp}\n", "models.direction"),
    "reranker_hub.yaml": ("models: {reranker: someone/not-downloaded-reranker}\n", "models.reranker"),
    "s2_url.yaml": ("sources: {semantic_scholar_url: 'http://[::1'}\n", "sources.semantic_scholar_url"),
    "engine_url.yaml": ("browser: {engine_urls: {duckduckgo: 'not a url'}}\n", "browser.engine_urls"),
    "user_agent.yaml": ('browser: {user_agent: "Lyra\\r\\nX-Injected: 1"}\n', "browser.user_agent"),
}


def write_config_inputs(folder: Path) -> Path:
    """The hostile files in ``folder/config``: HOSTILE_FILES, BAD_SETTINGS, a folder and a FIFO."""
    root = folder / "config"
    (root / "folder").mkdir(parents=True)
    os.mkfifo(root / "fifo")
    for name, (text, _says) in {**HOSTILE_FILES, **BAD_SETTINGS}.items():
        (root / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    return root


def config_cases() -> list[Case]:
    """Every call, in a fixed order, and what the refusal of each says (``said``)."""
    out = []
    targets = {name: "{dir}/config/" + name for name in HOSTILE_FILES}
    targets |= {"fifo": "{dir}/config/fifo", "folder": "{dir}/config/folder", "/dev/zero": "/dev/zero"}
    for name, path in targets.items():
        for variable in ("LYRA_SETTINGS", "LYRA_DOMAINS"):
            out.append(Case(f"{variable} {name}", RUN, env={variable: path}))
        if name in ("deep_list.yaml", "fifo"):  # a command that reads the settings at its start
            out.append(
                Case(
                    f"models list LYRA_SETTINGS {name}",
                    ["models", "list", "--home", "{home}"],
                    env={"LYRA_SETTINGS": path},
                )
            )
    for variable, value, _says in BAD_ENVIRONMENT:
        out.append(Case(f"env {variable}={value!r}", RUN, env={variable: value}))
    for name in BAD_SETTINGS:
        out.append(Case(f"settings {name}", RUN, env={"LYRA_SETTINGS": "{dir}/config/" + name}))
    out.append(
        Case(
            "models list settings nli_etc.yaml",
            ["models", "list", "--home", "{home}"],
            env={"LYRA_SETTINGS": "{dir}/config/nli_etc.yaml"},
        )
    )
    return out


def said(case: Case) -> str:
    """What the error line of ``case`` must hold."""
    if case.name.startswith("env "):
        return next(s for v, value, s in BAD_ENVIRONMENT if case.name == f"env {v}={value!r}")
    name = case.name.rsplit(" ", 1)[-1]
    if name in BAD_SETTINGS:
        return BAD_SETTINGS[name][1]
    return SPECIAL[name] if name in SPECIAL else HOSTILE_FILES[name][1]


def run_config_cases(chosen: list[Case], timeout_s: float = 120.0, log=print) -> list[fuzz_cli.Outcome]:
    """Build the scratch home and inputs (bench.fuzz_cli's, the hostile configuration among them),
    make every call of ``chosen``; a refusal that does not say what it should is a problem too."""
    with tempfile.TemporaryDirectory(prefix="lyra-fuzz-config-") as tmp:
        scratch = Path(tmp)
        home = fuzz_cli.build_home(scratch)
        inputs = fuzz_cli.write_inputs(scratch)  # the hostile configuration too (write_config_inputs)
        outcomes = []
        for case in chosen:
            outcome = fuzz_cli.call(case, home, inputs, scratch, timeout_s)
            if outcome.code not in (0, None) and said(case) not in outcome.stderr:
                outcome.problems.append(
                    f"the error line does not say {said(case)!r}: {outcome.stderr[:300]!r}"
                )
            outcomes.append(outcome)
            mark = "ok " if not outcome.problems else "BAD"
            log(
                f"{mark} {outcome.code!s:>4} {outcome.seconds:5.1f}s  {case.name}"
                + (f"  <- {'; '.join(outcome.problems)}" if outcome.problems else "")
            )
        return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a call may take")
    args = parser.parse_args()
    outcomes = run_config_cases(config_cases(), args.timeout)
    print(fuzz_cli.summary(outcomes))
    sys.exit(1 if any(o.problems for o in outcomes) else 0)


if __name__ == "__main__":
    main()
