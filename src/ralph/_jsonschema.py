"""A small JSON Schema checker for the result schemas phases hand agents.

It covers the keywords those schemas use (``type``, ``enum``, ``required``,
``properties``, ``additionalProperties``, ``items``, ``minItems``, ``minLength``,
``minimum``) and reports every problem with its location, so a retry can tell the agent
exactly what to fix. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["schema_errors"]

_TYPES: Mapping[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list, tuple),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[kind])


def schema_errors(value: Any, schema: Mapping[str, Any], where: str = "result") -> list[str]:
    """Every way ``value`` breaks ``schema``; empty when it conforms."""
    kinds = schema.get("type")
    if kinds is not None:
        allowed = [kinds] if isinstance(kinds, str) else list(kinds)
        if not any(_is(value, kind) for kind in allowed):
            return [f"{where} must be {' or '.join(allowed)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        options = ", ".join(repr(option) for option in schema["enum"])
        return [f"{where} must be one of {options}, got {value!r}"]
    errors: list[str] = []
    if isinstance(value, dict):
        required = schema.get("required", ())
        errors += [f"{where} lacks {key!r}" for key in required if key not in value]
        properties = schema.get("properties", {})
        for key, item in value.items():
            if key in properties:
                errors += schema_errors(item, properties[key], f"{where}.{key}")
            elif schema.get("additionalProperties") is False:
                errors.append(f"{where} has an unexpected field {key!r}")
    if isinstance(value, (list, tuple)):
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{where} needs at least {schema['minItems']} item(s)")
        if "items" in schema:
            for index, item in enumerate(value):
                errors += schema_errors(item, schema["items"], f"{where}[{index}]")
    if isinstance(value, str) and len(value.strip()) < schema.get("minLength", 0):
        errors.append(f"{where} must not be empty")
    if _is(value, "number") and "minimum" in schema and value < schema["minimum"]:
        errors.append(f"{where} must be at least {schema['minimum']}")
    return errors
