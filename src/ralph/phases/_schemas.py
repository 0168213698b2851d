"""The structured results phases ask agents for, as JSON schemas. Every result may
instead carry ``escalate`` (why a person is needed), which ends the phase there."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ESTIMATES", "TEXT", "result_schema"]

ESTIMATES = ["XS", "S", "M", "L", "XL"]
#: A non-empty string.
TEXT = {"type": "string", "minLength": 1}


def result_schema(required: Sequence[str], properties: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": list(required),
        "properties": {
            **properties,
            "escalate": {"type": "string", "description": "why a person is needed, if so"},
        },
    }
