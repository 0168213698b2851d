"""A small JSON Schema checker: for the result schemas phases hand agents and for the
arguments MCP tools take.

It covers the keywords those schemas use (``type``, ``enum``, ``anyOf``, ``required``,
``properties``, ``additionalProperties``, ``items``, ``minItems``, ``minLength``,
``minimum``, ``maximum``, ``exclusiveMinimum``) and reports every problem with its
location, so a retry can tell the agent exactly what to fix. Strict as JSON is: a
boolean is not an integer, a string is not a number, and an integer must fit the 64 bits
every store holds. Pure.

Not the ``jsonschema`` package: it would need a custom type checker, ``minLength`` and
a translation of every message to say the same, costs ~390 ms to import and is 3-6
times slower per check (benchmarks/bench_jsonschema.py).
"""

from __future__ import annotations

import math
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

#: The integers SQLite and PostgreSQL (BIGINT) hold.
_INT64 = (-(2**63), 2**63 - 1)


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    if kind == "number" and isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, _TYPES[kind])


def _kinds(schema: Mapping[str, Any]) -> list[str]:
    kinds = schema.get("type")
    if kinds is None:
        return []
    return [kinds] if isinstance(kinds, str) else list(kinds)


def _one_of(value: Any, options: list[Mapping[str, Any]], where: str) -> list[str]:
    """``anyOf``: conforming to one option is enough; otherwise the problems with the
    option of the value's own type, else the types the options allow."""
    found = [schema_errors(value, option, where) for option in options]
    if any(not errors for errors in found):
        return []
    for option, errors in zip(options, found, strict=True):
        if any(_is(value, kind) for kind in _kinds(option)):
            return errors
    allowed = [kind for option in options for kind in _kinds(option)]
    return [_type_error(value, allowed, where)]


def _type_error(value: Any, allowed: list[str], where: str) -> str:
    got = str(value) if isinstance(value, float) else type(value).__name__
    return f"{where} must be {' or '.join(allowed)}, got {got}"


def schema_errors(value: Any, schema: Mapping[str, Any], where: str = "result") -> list[str]:
    """Every way ``value`` breaks ``schema``; empty when it conforms."""
    allowed = _kinds(schema)
    if allowed and not any(_is(value, kind) for kind in allowed):
        return [_type_error(value, allowed, where)]
    if "enum" in schema and value not in schema["enum"]:
        options = ", ".join(repr(option) for option in schema["enum"])
        return [f"{where} must be one of {options}, got {value!r}"]
    if "anyOf" in schema:
        problems = _one_of(value, schema["anyOf"], where)
        if problems:
            return problems
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
    if _is(value, "integer") and not _INT64[0] <= value <= _INT64[1]:
        errors.append(f"{where} must fit in 64 bits, got {value}")
    elif _is(value, "number"):
        errors += _range_errors(value, schema, where)
    return errors


def _range_errors(value: float, schema: Mapping[str, Any], where: str) -> list[str]:
    if "minimum" in schema and value < schema["minimum"]:
        return [f"{where} must be at least {schema['minimum']}"]
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        return [f"{where} must be more than {schema['exclusiveMinimum']}"]
    if "maximum" in schema and value > schema["maximum"]:
        return [f"{where} must be at most {schema['maximum']}"]
    return []
