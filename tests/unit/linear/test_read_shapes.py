"""What the Linear tracker asks Linear for a query, and what each read costs: filters
are valid ``IssueFilter`` inputs of Linear's schema and narrow on Linear's side; pages
are sized to stay under half of Linear's 10,000 points a request; a read of issues by
row costs a fraction of one by ``IssueFields``."""

from __future__ import annotations

import pytest
from graphql import GraphQLInputObjectType, Undefined, coerce_input_value

from ralph.linear.fake import complexity, linear_schema
from ralph.linear.queries import (
    ALL,
    BOARD_ROWS,
    ISSUE_ROWS,
    LINKS,
    TEAM_CHANGES,
    TEAM_CHANGES_FIRST,
)
from ralph.tracker import IssueQuery, IssueStatus
from ralph.tracker.linear._reads import board_filter, issue_filter, some_of, team_filter
from ralph.tracker.linear._team import LinearTeam
from ralph.workflow import Estimate, WorkflowState

TEAM = LinearTeam("0b3e2c3e-9d9a-4a37-8a3f-3f5b2e1c0d4a", "ENG", "Engineering", "tShirt")
ON_TEAM = {"team": {"id": {"eq": TEAM.id}}}


def valid_filter(value: object) -> object:
    kind = linear_schema().get_type("IssueFilter")
    assert isinstance(kind, GraphQLInputObjectType)
    coerced = coerce_input_value(value, kind)  # Undefined: what Linear refuses
    assert coerced is not Undefined, value
    return coerced


def cost(document, first: int) -> int:
    return complexity(linear_schema(), document.text, {"first": first})


def test_every_issue_is_the_team_and_archived_ones_only_when_asked():
    assert issue_filter(TEAM, IssueQuery(status=None)) == (ON_TEAM, False)
    assert issue_filter(TEAM, IssueQuery(status=None, archived=None)) == (ON_TEAM, True)


def test_open_issues_are_filtered_by_state_type_on_linears_side():
    wanted, archived = issue_filter(TEAM, IssueQuery())
    assert wanted == {**ON_TEAM, "state": {"type": {"nin": ["canceled", "completed", "duplicate"]}}}
    assert archived is False
    valid_filter(wanted)


def test_every_narrowing_field_of_a_query_goes_to_linear():
    query = IssueQuery(
        states=[WorkflowState.IN_PROGRESS],
        estimates=[Estimate.M],
        labels=["bug", "ui"],
        text="login",
        status=IssueStatus.OPEN,
        parent=12,
        updated_since=1_800_000_000.0,
        archived=True,
    )
    wanted, archived = issue_filter(TEAM, query)
    parts = wanted["and"]  # two state parts: ANDed under "and"
    assert ON_TEAM in parts
    assert {"state": {"name": {"in": ["In Progress"]}}} in parts
    assert {"estimate": {"in": [3]}} in parts
    assert {"labels": {"some": {"name": {"eqIgnoreCase": "bug"}}}} in parts
    assert {"labels": {"some": {"name": {"eqIgnoreCase": "ui"}}}} in parts
    text = {"containsIgnoreCase": "login"}
    assert {"or": [{"title": text}, {"description": text}]} in parts
    assert {"parent": {"number": {"eq": 12}}} in parts
    assert {"updatedAt": {"gte": "2027-01-15T08:00:00.000Z"}} in parts
    assert {"archivedAt": {"null": False}} in parts
    assert archived is True
    valid_filter(wanted)


def test_the_dashboard_and_the_issues_that_changed_are_valid_filters():
    valid_filter(board_filter(TEAM, 0.0))
    valid_filter(some_of(TEAM, numbers=[3, 1], ids=[TEAM.id]))
    assert some_of(TEAM, numbers=[3, 1]) == {**ON_TEAM, "number": {"in": [1, 3]}}
    assert team_filter(TEAM) == ON_TEAM


def test_a_misspelt_filter_would_be_refused():
    """The check above can fail."""
    with pytest.raises(AssertionError):
        valid_filter({"stat": {"type": {"eq": "started"}}})


@pytest.mark.parametrize("document", [ISSUE_ROWS, BOARD_ROWS, *LINKS.values()])
def test_a_page_of_rows_or_links_stays_under_half_of_linears_cap(document):
    assert 2_000 < cost(document, document.page_size) <= 5_000


def test_a_row_costs_a_sixth_of_an_issue_with_its_connections():
    row = cost(ISSUE_ROWS, 200) / 200
    full = complexity(linear_schema(), ALL["IssueByNumber"].text, {})
    assert row == pytest.approx(18.4, abs=0.1)
    assert full > 6 * row


def test_asking_what_changed_costs_fifty_points_then_a_page_of_ids_six_hundred():
    first = {"since": "x", "first": TEAM_CHANGES_FIRST}
    assert complexity(linear_schema(), TEAM_CHANGES.text, first) == 50
    more = {"since": "x", "first": TEAM_CHANGES.page_size}
    assert complexity(linear_schema(), TEAM_CHANGES.text, more) == 602
    assert "gte: $since" in TEAM_CHANGES.text  # a look overlaps the last one
