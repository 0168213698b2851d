"""Every GraphQL document Ralph sends to Linear validates against Linear's published
schema and fits Linear's limits: a misspelt field or a page too big fails here."""

from __future__ import annotations

import re

import pytest
from graphql import GraphQLInputObjectType, parse, validate
from graphql.language import OperationDefinitionNode

from ralph.linear.fake import complexity, linear_schema
from ralph.linear.queries import ALL, MAX_PAGE

#: Linear refuses a single request above this many points.
MAX_COMPLEXITY = 10_000
#: Ralph keeps each request under half of that: Linear's own count may differ from its
#: documented formula.
OUR_LIMIT = MAX_COMPLEXITY // 2


@pytest.mark.parametrize("name", sorted(ALL))
def test_the_document_validates_against_linears_schema(name):
    errors = validate(linear_schema(), parse(ALL[name].text))
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


def test_a_misspelt_field_does_not_validate():
    """The check above could fail: the schema does reject what Linear would."""
    errors = validate(linear_schema(), parse("query { viewer { nmae } }"))
    assert errors
    assert "nmae" in errors[0].message


def test_only_mutations_are_marked_as_creating():
    assert all(d.mutation for d in ALL.values() if d.creates)
    creating = {d.name for d in ALL.values() if d.creates}
    assert {"CreateIssue", "CreateComment", "CreateIssueRelation"} <= creating


@pytest.mark.parametrize("name", sorted(ALL))
def test_pages_stay_within_linears_limit(name):
    document = ALL[name]
    for size in re.findall(r"(?:first|last): (\d+)", document.text):
        assert 1 <= int(size) <= MAX_PAGE
    assert 0 <= document.page_size <= MAX_PAGE
    assert (document.page_size > 0) == ("$first" in document.text)


@pytest.mark.parametrize("name", sorted(ALL))
def test_the_document_costs_under_half_of_linears_limit_at_its_page(name):
    document = ALL[name]
    variables = {"first": document.page_size} if document.page_size else {}
    assert complexity(linear_schema(), document.text, variables) <= OUR_LIMIT


def test_a_page_too_big_would_cost_more_than_linears_limit():
    """The check above could fail: issues with their comments at Linear's largest page
    do."""
    document = ALL["IssuesWithComments"]
    assert complexity(linear_schema(), document.text, {"first": MAX_PAGE}) > MAX_COMPLEXITY


@pytest.mark.parametrize("input_type", ["IssueCreateInput", "CommentCreateInput"])
def test_a_create_may_name_its_own_id_to_be_found_after_a_lost_answer(input_type):
    kind = linear_schema().get_type(input_type)
    assert isinstance(kind, GraphQLInputObjectType)
    assert "id" in kind.fields


def test_the_documents_the_tracker_needs_are_all_there():
    assert set(ALL) >= {
        "Viewer",
        "Team",
        "TeamLabels",
        "CreateWorkflowState",
        "IssueRows",
        "BoardRows",
        "ChildrenOf",
        "LabelsOf",
        "RelationsOf",
        "InverseRelationsOf",
        "TeamChanges",
        "Issue",
        "IssueByNumber",
        "IssueWithComments",
        "IssuesWithComments",
        "IssueChildren",
        "IssueLabels",
        "IssueRelations",
        "IssueInverseRelations",
        "CreateIssue",
        "UpdateIssue",
        "ArchiveIssue",
        "UnarchiveIssue",
        "CreateComment",
        "IssueComments",
        "CreateIssueRelation",
        "DeleteIssueRelation",
        "CreateIssueLabel",
        "FindChildByTitle",
        "FindComment",
    }
