"""SQL is written in the layers that talk to a database: no string in ``lyra_core`` (pure) or
``lyra_tools`` (the interfaces) is an SQL statement. Their reads and writes go through functions of
``lyra_resources.store`` (the reviewed graph's readers, feedback's rows, relevance signals), so a
table's queries are found in one layer and the interfaces stay free of the schema.

Every string literal is read from each module's syntax tree, adjacent literals joined as Python
joins them and the literal parts of f-strings included, so a statement split over lines or built
with placeholders is found too."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from fixtures.paths import REPO

SQL_FREE = ("lyra_core", "lyra_tools")
STATEMENT = re.compile(
    r"\bSELECT\b[\s\S]*\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b"
    r"|\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:TABLE|INDEX|VIEW|SEQUENCE|SCHEMA)\b|\bALTER\s+TABLE\b"
    r"|\bDROP\s+(?:TABLE|INDEX|VIEW)\b"
)


def sql_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string literal in ``source`` that holds an SQL statement."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and STATEMENT.search(node.value):
            found.append((node.lineno, " ".join(node.value.split())[:80]))
    return found


def test_statements_are_found_however_written():
    assert sql_strings('q = ("SELECT a "\n     "FROM t WHERE x = ?")') == [(1, "SELECT a FROM t WHERE x = ?")]
    assert sql_strings('q = f"INSERT INTO {table} VALUES (?)"')
    assert sql_strings("conn.execute('UPDATE rules SET is_active = false')")
    assert sql_strings('x = """\nDELETE FROM t\n"""')
    assert not sql_strings('"""Select the claims from the graph and update the report."""')


def test_no_sql_in_the_pure_core_or_the_interfaces():
    found = {}
    for package in SQL_FREE:
        for path in sorted((REPO / package).rglob("*.py")):
            if hits := sql_strings(path.read_text(encoding="utf-8")):
                found[str(path.relative_to(REPO))] = hits
    assert not found, "SQL outside the store layer (move it into lyra_resources/store): " + "; ".join(
        f"{name}:{line} {text!r}" for name, hits in found.items() for line, text in hits
    )


def test_the_rule_reads_real_modules():
    assert any(Path(p).name == "feedback.py" for p in (REPO / "lyra_tools").rglob("*.py"))
    assert sql_strings((REPO / "lyra_resources" / "store" / "feedback_rows.py").read_text(encoding="utf-8"))
