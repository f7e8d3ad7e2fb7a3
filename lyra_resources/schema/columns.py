"""How a table of the registry is described: its columns, their types and whether it is per task."""

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

    @property
    def data_columns(self) -> list[str]:
        """The columns without ``task_id``: those an asset's frame carries (the store adds the task)."""
        return [c.name for c in self.columns if c.name != "task_id"]

    def ddl(self) -> str:
        cols = ", ".join(f"{c.name} {c.type}" for c in self.columns)
        return f"CREATE TABLE IF NOT EXISTS {self.name} ({cols})"


def table(name: str, description: str, columns: str, per_task: bool = True) -> TableSpec:
    """A table from one ``name TYPE`` line per column."""
    parsed = []
    for line in columns.strip().splitlines():
        col_name, col_type = line.split(maxsplit=1)
        parsed.append(Column(name=col_name, type=col_type.strip()))
    return TableSpec(name=name, columns=parsed, per_task=per_task, description=description)
