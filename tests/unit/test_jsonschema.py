"""Agent results are checked against their phase's schema, every problem named."""

from __future__ import annotations

from ralph._jsonschema import schema_errors

SCHEMA = {
    "type": "object",
    "required": ["verdict", "issues"],
    "additionalProperties": False,
    "properties": {
        "verdict": {"enum": ["APPROVED", "NEEDS_ITERATION"]},
        "issues": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "phases": {"type": "integer", "minimum": 1},
        "sub": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["title"]}},
    },
}


def test_a_conforming_value_has_no_errors():
    assert schema_errors({"verdict": "APPROVED", "issues": [], "phases": 2}, SCHEMA) == []


def test_every_problem_is_named_with_its_location():
    errors = schema_errors(
        {"verdict": "MAYBE", "issues": ["ok", " "], "phases": 0, "sub": [{}], "extra": 1}, SCHEMA
    )
    assert errors == [
        "result.verdict must be one of 'APPROVED', 'NEEDS_ITERATION', got 'MAYBE'",
        "result.issues[1] must not be empty",
        "result.phases must be at least 1",
        "result.sub[0] lacks 'title'",
        "result has an unexpected field 'extra'",
    ]


def test_wrong_types_and_missing_fields():
    assert schema_errors([], SCHEMA) == ["result must be object, got list"]
    assert schema_errors({"verdict": "APPROVED", "issues": [], "phases": True}, SCHEMA) == [
        "result.phases must be integer, got bool"
    ]
    assert schema_errors({}, SCHEMA) == ["result lacks 'verdict'", "result lacks 'issues'"]
