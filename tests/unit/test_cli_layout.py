"""The ``lyra`` app as its command modules build it: every command in its place and order, and
every module small."""

from __future__ import annotations

from pathlib import Path

import click
import typer

from lyra_tools import cli

COMMANDS = [
    "run",
    "verify",
    "mcp",
    "ui",
    "daemon",
    "export",
    "report",
    "task",
    "models",
    "claims",
    "evidence",
    "search",
    "corpus",
    "feedback",
    "worker",
    "store",
]
GROUPS = {
    "task": ["list", "status", "run", "watch", "unwatch", "stop", "delete"],
    "models": [
        "fetch-snli",
        "train-snli",
        "train-nli",
        "train-direction",
        "train-claim-roles",
        "train-reranker",
        "list",
        "activate",
        "train-adapter",
    ],
    "feedback": ["apply", "edge-correct"],
    "store": ["copy"],
    "corpus": ["embed"],
}


def test_every_command_in_its_place():
    group = typer.main.get_command(cli.app)
    ctx = click.Context(group)
    assert group.list_commands(ctx) == COMMANDS
    for name, subcommands in GROUPS.items():
        sub = group.get_command(ctx, name)
        assert sub.list_commands(click.Context(sub, parent=ctx)) == subcommands, name


def test_cli_modules_stay_small():
    folder = Path(cli.__file__).parent
    sizes = {p.name: len(p.read_text().splitlines()) for p in folder.glob("*.py")}
    assert {"entry_point.py", "run.py", "tasks.py", "models.py", "feedback.py"} <= set(sizes)
    assert max(sizes.values()) <= 400, sizes
