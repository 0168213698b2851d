"""A request checked against an OpenAPI 3 document as the service would check it."""

from __future__ import annotations

from typing import Any

import pytest

from ralph._openapi import OpenApiDocument

SPEC: dict[str, Any] = {
    "openapi": "3.0.1",
    "paths": {
        "/api/items/{id}": {
            "parameters": [
                {"in": "path", "name": "id", "required": True, "schema": {"type": "integer"}}
            ],
            "get": {
                "operationId": "getItem",
                "parameters": [
                    {"in": "query", "name": "expand", "schema": {"type": "boolean"}},
                    {"in": "query", "name": "limit", "schema": {"type": "integer", "maximum": 100}},
                    {
                        "in": "query",
                        "name": "state",
                        "schema": {"type": "string", "enum": ["open", "closed"]},
                    },
                    {
                        "in": "query",
                        "name": "fields",
                        "schema": {"type": "array", "items": {"type": "string"}},
                    },
                ],
            },
            "put": {
                "operationId": "editItem",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Edit"}}
                    },
                },
            },
        },
        "/api/items/search": {
            "get": {
                "operationId": "searchItems",
                "parameters": [
                    {"in": "query", "name": "q", "required": True, "schema": {"type": "string"}}
                ],
            }
        },
    },
    "components": {
        "schemas": {
            "Edit": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "title": {"type": "string"},
                    "due": {"type": "string", "nullable": True},
                    "id": {"type": "integer", "readOnly": True},
                },
            }
        }
    },
}


@pytest.fixture
def document() -> OpenApiDocument:
    return OpenApiDocument(SPEC)


def test_a_literal_segment_wins_over_a_parameter(document: OpenApiDocument) -> None:
    operation = document.operation("GET", "/api/items/search")
    assert operation is not None
    assert operation.operation_id == "searchItems"
    item = document.operation("get", "/api/items/12")
    assert item is not None
    assert item.path_values == {"id": "12"}


def test_a_well_formed_request_has_no_problems(document: OpenApiDocument) -> None:
    query = [
        ("expand", "true"),
        ("limit", "100"),
        ("state", "open"),
        ("fields", "a"),
        ("fields", "b"),
    ]
    assert document.problems("GET", "/api/items/3", query) == []
    assert document.problems("PUT", "/api/items/3", body={"title": "t", "due": None}) == []


@pytest.mark.parametrize(
    ("method", "path", "query", "body", "problem"),
    [
        ("GET", "/api/nothing", [], None, "no operation GET /api/nothing"),
        ("DELETE", "/api/items/3", [], None, "no operation DELETE"),
        ("GET", "/api/items/x", [], None, "parameter 'id': 'x' is not an integer"),
        ("GET", "/api/items/3", [("bogus", "1")], None, "unknown query parameter 'bogus'"),
        ("GET", "/api/items/3", [("limit", "101")], None, "over the maximum 100"),
        ("GET", "/api/items/3", [("expand", "yes")], None, "is not true or false"),
        ("GET", "/api/items/3", [("state", "all")], None, "is not one of open, closed"),
        ("GET", "/api/items/search", [], None, "'q' is required"),
        ("PUT", "/api/items/3", [], None, "a request body is required"),
        ("PUT", "/api/items/3", [], {"title": 5}, "title: 5 is not of type 'string'"),
        ("PUT", "/api/items/3", [], {"colour": "red"}, "Additional properties"),
        ("PUT", "/api/items/3", [], {"id": 4}, "id is read-only"),
        ("GET", "/api/items/3", [], {"title": "t"}, "takes no JSON body"),
    ],
)
def test_what_the_service_refuses_is_named(
    document: OpenApiDocument,
    method: str,
    path: str,
    query: list[tuple[str, str]],
    body: Any,
    problem: str,
) -> None:
    found = document.problems(method, path, query, body)
    assert any(problem in line for line in found), found
