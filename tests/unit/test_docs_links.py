"""The documentation holds together: every relative link in README.md and docs/*.md reaches a file
(and, with a ``#fragment``, a heading of it), the README's commands table lists every ``lyra``
command with options the command has, and CI runs the README's test command."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import click
import pytest
import typer

from fixtures.paths import REPO as ROOT
from lyra_tools import cli

README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)


def _prose(text: str) -> str:
    """The text without fenced code blocks and code spans, where brackets are not links."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: markup dropped, lower case, punctuation dropped, spaces → '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").replace("*", "").lower()
    kept = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in a Markdown file; a repeated heading's get -1, -2 … as on GitHub."""
    seen: dict[str, int] = {}
    out = set()
    for match in _HEADING.finditer(_FENCE.sub("", path.read_text(encoding="utf-8"))):
        slug = _slug(match.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}-{count}")
    return out


def relative_links(path: Path) -> list[str]:
    return [
        target
        for target in _LINK.findall(_prose(path.read_text(encoding="utf-8")))
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE)
    ]


def broken_links(path: Path) -> list[str]:
    broken = []
    for target in relative_links(path):
        file_part, _, fragment = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
            broken.append(f"{target}: no heading with that anchor")
    return broken


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(document):
    assert broken_links(document) == []


def test_the_link_checker_sees_a_broken_link_and_a_missing_anchor(tmp_path):
    (tmp_path / "other.md").write_text("# Other\n\n## Two words (here)\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[a](other.md#two-words-here) [b](missing.md) [c](other.md#nowhere) [d](#self)\n"
        "`[e](inside-code.md)`\n```\n[f](inside-fence.md)\n```\n# Self\n",
        encoding="utf-8",
    )
    assert [line.split(":")[0] for line in broken_links(page)] == ["missing.md", "other.md#nowhere"]


def cli_commands() -> dict[str, click.Command]:
    """Every command a user can call, by its full name (``lyra task list``), groups left out."""
    out: dict[str, click.Command] = {}

    def walk(command: click.Command, name: str, ctx: click.Context) -> None:
        if hasattr(command, "list_commands"):  # a group (typer's click types are its own copy of click's)
            for sub in command.list_commands(ctx):
                child = command.get_command(ctx, sub)
                walk(child, f"{name} {sub}", click.Context(child, parent=ctx))
        else:
            out[name] = command

    root = typer.main.get_command(cli.app)
    walk(root, "lyra", click.Context(root))
    return out


def commands_table() -> list[str]:
    """The first column of the README's commands table: one usage line per command (``<br>`` splits a cell)."""
    section = README.read_text(encoding="utf-8").split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `lyra ")]
    usages = []
    for row in rows:
        first_cell = re.split(r"(?<!\\)\|", row)[1]
        usages += [span.replace("\\|", "|") for span in re.findall(r"`([^`]+)`", first_cell)]
    return usages


def _names(usage: str, commands: dict[str, click.Command]) -> str | None:
    """The longest command name a usage line starts with."""
    matches = [name for name in commands if usage == name or usage.startswith(name + " ")]
    return max(matches, key=len, default=None)


def test_the_readme_lists_every_command():
    commands = cli_commands()
    listed = {_names(usage, commands) for usage in commands_table()}
    assert sorted(set(commands) - listed) == []


def test_the_readme_commands_table_names_only_real_commands_and_options():
    commands = cli_commands()
    problems = []
    for usage in commands_table():
        name = _names(usage, commands)
        if name is None:
            problems.append(f"{usage}: no such command")
            continue
        options = {opt for param in commands[name].params for opt in param.opts + param.secondary_opts}
        problems += [
            f"{usage}: no option {flag}"
            for flag in re.findall(r"(?<![\w-])--[a-z][\w-]*", usage)
            if flag not in options
        ]
    assert problems == []


def test_ci_runs_the_readme_test_command():
    """.ci/run installs, then runs the README's test command as it stands (the same pytest call)."""
    quick_start = README.read_text(encoding="utf-8").split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", quick_start, re.DOTALL)
    test_command = next(block.strip() for block in blocks if "pytest" in block)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert [step for step in test_command.split(" && ") if step not in ci] == []
