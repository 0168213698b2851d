"""The fake GitHub and Linear keep their published schemas without source locations (a
schema's locations were over half its objects, walked by every full garbage collection),
while a query's errors still point at the query's own line and column."""

from __future__ import annotations

import pytest
from graphql import GraphQLSchema, parse, validate

from ralph.github.fake import github_schema
from ralph.linear.fake import linear_schema

pytestmark = pytest.mark.timeout(60)

SCHEMAS = {"github": github_schema, "linear": linear_schema}


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_the_schema_keeps_no_source_locations(name: str) -> None:
    schema: GraphQLSchema = SCHEMAS[name]()
    assert schema.query_type is not None
    node = schema.query_type.ast_node
    assert node is not None
    assert node.loc is None
    assert all(
        field.ast_node is None or field.ast_node.loc is None
        for field in schema.query_type.fields.values()
    )


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_a_querys_error_still_points_at_its_line_and_column(name: str) -> None:
    (error,) = validate(SCHEMAS[name](), parse("{\n  noSuchField\n}"))
    assert "noSuchField" in error.message
    assert [(at.line, at.column) for at in error.locations or ()] == [(2, 3)]
