"""The table contract: names, columns and types that every part of Lyra reads.

Per-task tables carry ``task_id`` first; the store replaces one task's rows at a time.
Adding a column is safe (the store migrates old databases); renaming one breaks readers.
"""

from __future__ import annotations

from pydantic import BaseModel


class Column(BaseModel):
    name: str
    type: str


class TableSpec(BaseModel):
    name: str
    columns: list[Column]
    per_task: bool = True
    description: str = ""

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def ddl(self) -> str:
        cols = ", ".join(f"{c.name} {c.type}" for c in self.columns)
        return f"CREATE TABLE IF NOT EXISTS {self.name} ({cols})"


def _table(name: str, description: str, columns: str, per_task: bool = True) -> TableSpec:
    parsed = []
    for line in columns.strip().splitlines():
        col_name, col_type = line.split(maxsplit=1)
        parsed.append(Column(name=col_name, type=col_type.strip()))
    return TableSpec(name=name, columns=parsed, per_task=per_task, description=description)


TASKS = _table(
    "tasks",
    "one row per research task; the source of truth for task metadata",
    """
    id VARCHAR PRIMARY KEY
    query VARCHAR
    created_at TIMESTAMP
    status VARCHAR
    options JSON
    updated_at TIMESTAMP
    last_run_id VARCHAR
    error VARCHAR
    """,
    per_task=False,
)

PAPERS = _table(
    "papers",
    "canonical papers found for the task, duplicates across sources merged",
    """
    task_id VARCHAR
    paper_id VARCHAR
    doi VARCHAR
    pmid VARCHAR
    arxiv_id VARCHAR
    title VARCHAR
    abstract VARCHAR
    year INTEGER
    venue VARCHAR
    url VARCHAR
    sources VARCHAR[]
    search_rank INTEGER
    """,
)

PAGES = _table(
    "pages",
    "every source document of the task: an abstract or a web page",
    """
    task_id VARCHAR
    page_id VARCHAR
    paper_id VARCHAR
    url VARCHAR
    domain VARCHAR
    kind VARCHAR
    title VARCHAR
    """,
)

FRAGMENTS = _table(
    "fragments",
    "sentence-window pieces of each page's text, the unit that evidence is judged on",
    """
    task_id VARCHAR
    fragment_id VARCHAR
    page_id VARCHAR
    position INTEGER
    text VARCHAR
    """,
)

TABLES: dict[str, TableSpec] = {t.name: t for t in (TASKS, PAPERS, PAGES, FRAGMENTS)}
PER_TASK_TABLES = [name for name, spec in TABLES.items() if spec.per_task]

