"""Every GraphQL document Ralph sends validates against GitHub's published schema (with
the issue-dependencies extension): a misspelt field fails here, not on a board."""

from __future__ import annotations

import pytest
from graphql import GraphQLInputObjectType, parse, validate
from graphql.language import FieldNode, OperationDefinitionNode, VariableNode
from graphql.utilities import validate_input_value

from ralph.github.fake import github_schema
from ralph.github.queries import (
    ALL,
    BATCH_LIMIT,
    CREATE_ISSUE,
    GROUP_LIMIT,
    ISSUE_SHAPES,
    batch,
    comment_part,
    input_of,
    issue_group_query,
    issue_query,
    issues_query,
    set_field_part,
)


@pytest.mark.parametrize("name", sorted(ALL))
def test_the_document_validates_against_githubs_schema(name):
    errors = validate(github_schema(), parse(ALL[name].text))
    assert [e.message for e in errors] == []


@pytest.mark.parametrize("name", sorted(ALL))
def test_the_document_is_one_named_operation_of_the_kind_it_declares(name):
    document = ALL[name]
    operations = [
        d for d in parse(document.text).definitions if isinstance(d, OperationDefinitionNode)
    ]
    assert len(operations) == 1
    assert operations[0].name is not None
    assert operations[0].name.value == name
    assert (operations[0].operation.value == "mutation") == document.mutation


def test_only_mutations_are_marked_as_creating():
    assert all(d.mutation for d in ALL.values() if d.creates)
    creating = {d.name for d in ALL.values() if d.creates}
    assert {"CreateIssue", "AddComment", "CreatePullRequest"} <= creating


def test_a_misspelt_field_does_not_validate():
    """The check above could fail: the schema does reject what GitHub would."""
    errors = validate(github_schema(), parse("query { viewer { logn } }"))
    assert errors
    assert "logn" in errors[0].message


def test_connections_stay_within_githubs_page_limits():
    import re

    for document in ALL.values():
        for size in re.findall(r"(?:first|last): (\d+)", document.text):
            assert 1 <= int(size) <= 100, document.name


@pytest.mark.parametrize("name", sorted(n for n, d in ALL.items() if d.mutation))
def test_a_mutation_takes_one_input_holding_only_the_keys_it_sets(name):
    """GraphQL tells an explicit null from an absent key: a mutation sends one ``$input``
    built from the set keys, never a null for a field it leaves alone."""
    (operation,) = [
        d for d in parse(ALL[name].text).definitions if isinstance(d, OperationDefinitionNode)
    ]
    variables = [v.variable.name.value for v in operation.variable_definitions or ()]
    # A batch (``queries.batch``) gives each of its mutations one such input of its own.
    inputs = [
        argument.value.name.value
        for selection in operation.selection_set.selections
        if isinstance(selection, FieldNode)
        for argument in selection.arguments or ()
        if argument.name.value == "input" and isinstance(argument.value, VariableNode)
    ]
    assert len(inputs) == len(operation.selection_set.selections)
    assert variables == inputs
    assert len(variables) == 1 or ALL[name].text.count(": $") == len(variables)


@pytest.mark.parametrize("size", range(1, BATCH_LIMIT + 1))
def test_a_batch_of_every_size_validates(size):
    parts = tuple(comment_part(f"c{i}") if i % 2 else set_field_part(f"f{i}") for i in range(size))
    document = batch("Batch", parts)
    assert [e.message for e in validate(github_schema(), parse(document.text))] == []
    assert document.creations == size // 2
    assert document.creates == (size > 1)


def test_a_batch_holds_at_most_githubs_safe_number_of_mutations():
    with pytest.raises(ValueError, match="1 to 10"):
        batch("TooMany", tuple(set_field_part(f"f{i}") for i in range(BATCH_LIMIT + 1)))


@pytest.mark.parametrize("count", [1, 2, GROUP_LIMIT])
@pytest.mark.parametrize("shape", ISSUE_SHAPES, ids=repr)
def test_a_group_read_of_every_size_and_shape_validates(shape, count):
    schema = github_schema(dependencies=shape.dependencies, sub_issues=shape.sub_issues)
    document = issue_group_query(shape, count)
    assert [e.message for e in validate(schema, parse(document.text))] == []
    assert document.text.count("issue(number: $n") == count


def test_input_of_leaves_out_what_is_not_set():
    assert input_of(id="I_1", title=None, body="", labelIds=[]) == {
        "input": {"id": "I_1", "body": "", "labelIds": []}
    }


@pytest.mark.parametrize("shape", ISSUE_SHAPES, ids=repr)
def test_every_shape_of_an_issue_read_validates(shape):
    for document in (issue_query(shape), issues_query(shape)):
        errors = validate(github_schema(), parse(document.text))
        assert [e.message for e in errors] == [], document.name
        assert ("projectItems" in document.text) == shape.board


@pytest.mark.parametrize("shape", ISSUE_SHAPES, ids=repr)
def test_an_issue_read_shaped_for_a_server_validates_on_that_servers_schema(shape):
    schema = github_schema(dependencies=shape.dependencies, sub_issues=shape.sub_issues)
    for document in (issue_query(shape), issues_query(shape)):
        assert [e.message for e in validate(schema, parse(document.text))] == []


def test_a_create_without_a_parent_is_accepted_by_a_server_without_sub_issues():
    """One ``CreateIssue`` serves both: its ``$input`` names ``parentIssueId`` only when
    set, and only a server with sub-issues knows that key."""
    schema = github_schema(sub_issues=False)
    assert validate(schema, parse(CREATE_ISSUE.text)) == []
    create_input = schema.get_type("CreateIssueInput")
    assert isinstance(create_input, GraphQLInputObjectType)

    def refusals(value: dict[str, object]) -> list[str]:
        found: list[str] = []
        validate_input_value(value, create_input, lambda error, _path: found.append(error.message))
        return found

    parentless = input_of(repositoryId="R_1", title="Epic", parentIssueId=None)["input"]
    assert refusals(parentless) == []
    (refused,) = refusals({**parentless, "parentIssueId": "I_1"})
    assert "parentIssueId" in refused


def test_a_full_issue_read_fails_on_a_server_without_dependencies():
    """The check above could fail: the server's schema does lack the fields."""
    schema = github_schema(dependencies=False)
    errors = validate(schema, parse(issue_query().text))
    assert any("blockedBy" in e.message for e in errors)
