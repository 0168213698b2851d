"""Typed field readers for JSON objects from files and APIs.

They accept the first of several key spellings (the original's camelCase and our
snake_case) and raise InvalidInput naming the field, never KeyError or TypeError.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ralph.errors import InvalidInput

__all__ = ["int_field", "int_list_field", "object_field", "optional_str", "str_list_field"]


def _first(data: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[str, Any] | None:
    for key in keys:
        if key in data and data[key] is not None:
            return key, data[key]
    return None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def object_field(data: object, what: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise InvalidInput(f"{what} must be a JSON object, got {data!r}")
    return data


def int_field(data: Mapping[str, Any], *keys: str, required: bool = True) -> int | None:
    """The first of ``keys`` that is present and not null, as an int."""
    found = _first(data, keys)
    if found is None:
        if required:
            raise InvalidInput(f"missing field {keys[0]!r}")
        return None
    key, value = found
    if not _is_int(value):
        raise InvalidInput(f"field {key!r} must be an integer, got {value!r}")
    return int(value)


def int_list_field(data: Mapping[str, Any], *keys: str) -> tuple[int, ...]:
    found = _first(data, keys)
    if found is None:
        return ()
    key, value = found
    if not isinstance(value, list) or not all(_is_int(v) for v in value):
        raise InvalidInput(f"field {key!r} must be a list of integers, got {value!r}")
    return tuple(value)


def str_list_field(data: Mapping[str, Any], *keys: str) -> tuple[str, ...]:
    found = _first(data, keys)
    if found is None:
        return ()
    key, value = found
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidInput(f"field {key!r} must be a list of strings, got {value!r}")
    return tuple(value)


def optional_str(data: Mapping[str, Any], *keys: str) -> str | None:
    found = _first(data, keys)
    if found is None:
        return None
    key, value = found
    if not isinstance(value, str):
        raise InvalidInput(f"field {key!r} must be a string or null, got {value!r}")
    return value
