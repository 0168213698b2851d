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


ARGUMENTS = {
    "type": "object",
    "properties": {
        "number": {"type": "integer"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 500},
        "hours": {"type": "number", "exclusiveMinimum": 0},
        "parent": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "labels": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
    },
}


def test_json_types_are_strict_a_bool_is_no_integer_and_a_string_no_number():
    assert schema_errors({"number": True}, ARGUMENTS, "arguments") == [
        "arguments.number must be integer, got bool"
    ]
    assert schema_errors({"number": "12"}, ARGUMENTS, "arguments") == [
        "arguments.number must be integer, got str"
    ]
    assert schema_errors({"number": 1.5}, ARGUMENTS, "arguments") == [
        "arguments.number must be integer, got 1.5"
    ]
    assert schema_errors({"hours": float("nan")}, ARGUMENTS, "arguments") == [
        "arguments.hours must be number, got nan"
    ]


def test_integers_beyond_64_bits_and_out_of_range_numbers_are_named():
    assert schema_errors({"number": 2**63}, ARGUMENTS, "a") == [
        f"a.number must fit in 64 bits, got {2**63}"
    ]
    assert schema_errors({"limit": 501}, ARGUMENTS, "a") == ["a.limit must be at most 500"]
    assert schema_errors({"hours": 0}, ARGUMENTS, "a") == ["a.hours must be more than 0"]


def test_any_of_takes_either_option_and_names_the_problem_of_the_matching_one():
    assert schema_errors({"parent": None, "labels": ["x"]}, ARGUMENTS, "a") == []
    assert schema_errors({"parent": 3, "labels": None}, ARGUMENTS, "a") == []
    assert schema_errors({"parent": False}, ARGUMENTS, "a") == [
        "a.parent must be integer or null, got bool"
    ]
    assert schema_errors({"labels": ["x", 1]}, ARGUMENTS, "a") == [
        "a.labels[1] must be string, got int"
    ]
