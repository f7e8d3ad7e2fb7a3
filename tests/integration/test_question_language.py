"""A question in another script than English's is run, with a note saying that Lyra reads English
questions (not that the question is vague); `lyra run` and MCP create_task say it alike, from the
same input check, before the task exists."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fixtures.corpus import SMALL_CORPUS, write_jsonl
from fixtures.mcp import call
from lyra_resources.task_input import check_task_input
from lyra_tools.mcp.server import build_server

CHINESE = "维生素D能降低骨折风险吗？"
RUSSIAN = "Снижает ли витамин D риск переломов у пожилых людей?"


def test_a_question_in_another_script_gets_the_english_note_not_the_vague_one(tmp_path, small_corpus):
    for question in (CHINESE, RUSSIAN):
        checked = check_task_input(question, {"corpus": [str(small_corpus)]}, tmp_path / "h")
        assert len(checked.notes) == 1 and checked.notes[0].startswith("Lyra reads English questions"), (
            checked.notes
        )
        assert "vague" not in checked.notes[0]
    english = check_task_input(
        "Does vitamin D reduce fracture risk?", {"corpus": [str(small_corpus)]}, tmp_path / "h"
    )
    assert english.notes == []


def test_mcp_create_task_returns_the_same_note(tmp_path):
    home = tmp_path / "home"
    launched = []

    def launcher(task_id: str, root: Path):  # a real detached process standing in for the pipeline
        proc = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
        launched.append(proc)
        return proc.pid, root / "logs" / f"{task_id}.log"

    (home / "corpora").mkdir(parents=True)  # an agent names corpora under the server's corpus roots
    corpus = write_jsonl(home / "corpora" / "small.jsonl", SMALL_CORPUS)
    created, english = call(
        build_server(home, launcher=launcher),
        [
            ("create_task", {"query": CHINESE, "options": {"corpus": [str(corpus)]}}),
            (
                "create_task",
                {"query": "Does vitamin D reduce fracture risk?", "options": {"corpus": [str(corpus)]}},
            ),
        ],
    )
    assert all(proc.wait(10) == 0 for proc in launched)
    notes = created.structured_content["notes"]
    assert len(notes) == 1 and notes[0].startswith("Lyra reads English questions") and "vague" not in notes[0]
    assert english.structured_content["notes"] == []
