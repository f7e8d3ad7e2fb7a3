"""Output schemas a client validates in a fraction of a millisecond.

The SDK's client checks every structured answer against the tool's output schema with
``jsonschema``, which walks the whole answer: each list item, each ``$ref`` looked up, each
nullable field tried against ``anyOf`` branches (0.5–2 ms of the client's time per answer, more
than the server's own work for the small tools). The server builds every answer from its pydantic
model, which checks it in full already, so the published schema validates the answer's top level
only: its fields, their JSON types and which are required. The nested shapes stay in the schema,
described field by field under ``$defs`` (which a validator never walks unless referenced), and each
field names its shape in ``$comment``.
"""

from __future__ import annotations

from typing import Any

_KEPT = ("title", "description", "default", "enum", "const")


def _types(node: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The JSON types ``node`` allows and the ``$defs`` shapes it names."""
    if "$ref" in node:
        return ["object"], [node["$ref"]]
    if "anyOf" in node or "oneOf" in node:
        types: list[str] = []
        shapes: list[str] = []
        for branch in node.get("anyOf") or node["oneOf"]:
            t, s = _types(branch)
            types += [x for x in t if x not in types]
            shapes += s
        return types, shapes
    kind = node.get("type")
    shapes = []
    if kind == "array" and isinstance(node.get("items"), dict):
        shapes = _types(node["items"])[1]
    elif kind == "object" and isinstance(node.get("additionalProperties"), dict):
        shapes = _types(node["additionalProperties"])[1]
    if isinstance(kind, list):
        return list(kind), shapes
    return ([kind] if kind else []), shapes


def _shallow(node: dict[str, Any]) -> dict[str, Any]:
    out = {k: node[k] for k in _KEPT if k in node}
    types, shapes = _types(node)
    if types:
        out["type"] = types[0] if len(types) == 1 else types
    if shapes:
        out["$comment"] = "shape: " + ", ".join(dict.fromkeys(shapes))
    return out


def light_schema(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """``schema`` (an object's, as pydantic writes it) checking its top level only; the definitions
    of what lies below are kept, unreferenced."""
    if not schema or schema.get("type") != "object" or "properties" not in schema:
        return schema
    light = {k: v for k, v in schema.items() if k not in ("properties", "$defs")}
    light["properties"] = {name: _shallow(prop) for name, prop in schema["properties"].items()}
    if "$defs" in schema:
        light["$defs"] = schema["$defs"]
    return light
