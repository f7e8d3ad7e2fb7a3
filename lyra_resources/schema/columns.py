"""How a table of the registry is described: its columns, their types, what each holds and whether
the table is per task."""

from __future__ import annotations

from pydantic import BaseModel

# Between a column's type and its description in ``table``'s text: ``--`` starts an SQL comment,
# so no DuckDB type (nor a DEFAULT clause Lyra writes) contains it.
DESCRIPTION_SEPARATOR = "--"
TASK_ID_DESCRIPTION = "the task the row belongs to"


class Column(BaseModel):
    name: str
    type: str
    description: str = ""


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


def parse_column(line: str) -> Column:
    """One ``name TYPE -- what it holds`` line as a Column (the description may be left out)."""
    definition, _, description = line.partition(DESCRIPTION_SEPARATOR)
    col_name, col_type = definition.split(maxsplit=1)
    return Column(name=col_name, type=col_type.strip(), description=description.strip())


def table(name: str, description: str, columns: str, per_task: bool = True) -> TableSpec:
    """A table from one ``name TYPE -- what it holds`` line per column; a line that starts with
    ``--`` goes on with the description above it. A per-task table's ``task_id`` line may leave its
    description out: every such column holds the same thing."""
    lines: list[str] = []
    for line in columns.strip().splitlines():
        if line.strip().startswith(DESCRIPTION_SEPARATOR) and lines:
            lines[-1] += " " + line.strip().removeprefix(DESCRIPTION_SEPARATOR).strip()
        else:
            lines.append(line)
    parsed = [parse_column(line) for line in lines]
    if per_task:
        parsed = [
            c.model_copy(update={"description": c.description or TASK_ID_DESCRIPTION})
            if c.name == "task_id"
            else c
            for c in parsed
        ]
    return TableSpec(name=name, columns=parsed, per_task=per_task, description=description)
