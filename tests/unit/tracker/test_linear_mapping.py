"""Ralph's values as a Linear team holds them, and back, one value at a time."""

from __future__ import annotations

import uuid

import pytest

from ralph.tracker import CloseReason, IssueStatus
from ralph.tracker.linear import comment_from, issue_from
from ralph.tracker.linear._mapping import (
    STATE_TYPES,
    closing_state,
    estimate_from,
    estimate_points,
    number_of,
    priority_from,
    priority_number,
    state_from,
    suitable_type,
)
from ralph.workflow import Estimate, Priority, WorkflowState

pytestmark = pytest.mark.timeout(30)

S = WorkflowState


@pytest.mark.parametrize(
    ("state", "kind"),
    [
        (S.BACKLOG, "backlog"),
        (S.RESEARCH_NEEDED, "unstarted"),
        (S.RESEARCH_IN_PROGRESS, "started"),
        (S.READY_FOR_PLAN, "unstarted"),
        (S.PLAN_IN_PROGRESS, "started"),
        (S.PLAN_IN_REVIEW, "started"),
        (S.IN_PROGRESS, "started"),
        (S.IN_REVIEW, "started"),
        (S.DONE, "completed"),
        (S.HUMAN_NEEDED, "started"),
        (S.CANCELED, "canceled"),
    ],
)
def test_each_state_is_created_with_its_linear_type(state, kind):
    assert STATE_TYPES[state] == kind
    assert suitable_type(state, kind)


def test_every_workflow_state_has_a_type():
    assert set(STATE_TYPES) == set(WorkflowState)


@pytest.mark.parametrize("kind", ["backlog", "unstarted", "started"])
def test_an_open_state_may_be_any_open_type_a_person_chose(kind):
    assert suitable_type(S.RESEARCH_NEEDED, kind)
    assert not suitable_type(S.DONE, kind)
    assert not suitable_type(S.CANCELED, kind)


@pytest.mark.parametrize("kind", ["triage", "completed", "canceled", "duplicate"])
def test_an_open_state_of_a_closed_or_triage_type_is_unsuitable(kind):
    assert not suitable_type(S.IN_PROGRESS, kind)


def test_a_state_name_reads_as_ralphs_state_or_as_none():
    assert state_from("Plan in Review") is S.PLAN_IN_REVIEW
    assert state_from("Todo") is None
    assert state_from("plan in review") is None  # names are exact, as on the board
    assert state_from(None) is None


@pytest.mark.parametrize(
    ("estimate", "points"),
    [(Estimate.XS, 1), (Estimate.S, 2), (Estimate.M, 3), (Estimate.L, 5), (Estimate.XL, 8)],
)
def test_t_shirt_sizes_are_linears_fibonacci_points(estimate, points):
    assert estimate_points(estimate) == points
    assert estimate_from(points) is estimate
    assert estimate_from(float(points)) is estimate


@pytest.mark.parametrize("points", [None, 0, 4, 13, 21])
def test_points_off_ralphs_sizes_read_as_no_estimate(points):
    assert estimate_from(points) is None


def test_no_estimate_is_written_as_null():
    assert estimate_points(None) is None


@pytest.mark.parametrize(
    ("priority", "number"),
    [(Priority.P0, 1), (Priority.P1, 2), (Priority.P2, 3), (Priority.P3, 4)],
)
def test_priorities_are_linears_urgent_to_low(priority, number):
    assert priority_number(priority) == number
    assert priority_from(number) is priority


def test_no_priority_is_linears_zero_both_ways():
    assert priority_number(None) == 0
    assert priority_from(0) is None
    assert priority_from(None) is None


def test_closing_completed_moves_to_done_and_otherwise_to_canceled():
    assert closing_state(CloseReason.COMPLETED) is S.DONE
    assert closing_state(CloseReason.NOT_PLANNED) is S.CANCELED
    assert closing_state(CloseReason.DUPLICATE) is S.CANCELED


def test_an_identifier_gives_the_issue_number():
    assert number_of("ENG-12") == 12
    assert number_of("MY_TEAM-3") == 3


def _node(**overrides):
    node = {
        "id": str(uuid.uuid4()),
        "identifier": "ENG-7",
        "number": 7,
        "title": "Add a farewell\nfunction",
        "description": "Say goodbye.",
        "estimate": 2,
        "priority": 3,
        "createdAt": "2026-01-02T03:04:05.000Z",
        "updatedAt": "2026-01-03T03:04:05.000Z",
        "archivedAt": None,
        "state": {"id": "s1", "name": "Ready for Plan", "type": "unstarted"},
        "parent": {"id": "p", "identifier": "ENG-2"},
        "children": {
            "pageInfo": {"hasNextPage": False},
            "nodes": [
                {"id": "c1", "identifier": "ENG-8"},
                {"id": "c2", "identifier": "OPS-9"},
            ],
        },
        "labels": {"nodes": [{"id": "l1", "name": "ralph-fast-track"}]},
        "assignee": {"id": "u1", "name": "Ada Lovelace"},
        "relations": {
            "pageInfo": {"hasNextPage": False},
            "nodes": [
                {"id": "r1", "type": "blocks", "relatedIssue": {"id": "x", "identifier": "ENG-9"}},
                {
                    "id": "r2",
                    "type": "related",
                    "relatedIssue": {"id": "y", "identifier": "ENG-10"},
                },
                {"id": "r3", "type": "blocks", "relatedIssue": {"id": "z", "identifier": "OPS-1"}},
            ],
        },
        "inverseRelations": {
            "pageInfo": {"hasNextPage": False},
            "nodes": [
                {"id": "r4", "type": "blocks", "issue": {"id": "w", "identifier": "ENG-3"}},
                {"id": "r5", "type": "duplicate", "issue": {"id": "v", "identifier": "ENG-4"}},
            ],
        },
    }
    return {**node, **overrides}


def test_an_issue_reads_with_every_field_in_ralphs_values():
    issue = issue_from(_node(), "ENG")
    assert (issue.number, issue.title, issue.body) == (7, "Add a farewell function", "Say goodbye.")
    assert issue.workflow_state is S.READY_FOR_PLAN
    assert (issue.estimate, issue.priority) == (Estimate.S, Priority.P2)
    assert issue.labels == ("ralph-fast-track",)
    assert issue.assignees == ("Ada Lovelace",)
    assert (issue.status, issue.close_reason, issue.closed_at) == (IssueStatus.OPEN, None, None)
    assert issue.created_at == 1767323045.0
    assert issue.updated_at == 1767409445.0
    assert not issue.archived


def test_relations_are_numbers_of_the_teams_issues_only():
    issue = issue_from(_node(), "eng")
    assert issue.parent == 2
    assert issue.sub_issues == (8,)
    assert issue.blocking == (9,)  # blocks ENG-9; "related" and OPS-1 left out
    assert issue.blocked_by == (3,)  # ENG-3 blocks it; a duplicate link is no block


def test_a_parent_of_another_team_is_no_parent():
    assert issue_from(_node(parent={"id": "p", "identifier": "OPS-2"}), "ENG").parent is None


@pytest.mark.parametrize(
    ("state", "reason"),
    [
        ({"id": "s", "name": "Done", "type": "completed"}, CloseReason.COMPLETED),
        ({"id": "s", "name": "Canceled", "type": "canceled"}, CloseReason.NOT_PLANNED),
        ({"id": "s", "name": "Duplicate", "type": "canceled"}, CloseReason.DUPLICATE),
        ({"id": "s", "name": "Dupe", "type": "duplicate"}, CloseReason.DUPLICATE),
    ],
)
def test_a_closed_type_closes_the_issue_with_its_reason(state, reason):
    issue = issue_from(_node(state=state, completedAt="2026-01-04T00:00:00Z"), "ENG")
    assert (issue.status, issue.close_reason) == (IssueStatus.CLOSED, reason)
    assert issue.closed_at == 1767484800.0


def test_a_closed_issue_without_its_closing_time_is_closed_when_last_updated():
    issue = issue_from(_node(state={"id": "s", "name": "Done", "type": "completed"}), "ENG")
    assert issue.closed_at == issue.updated_at


def test_an_issue_without_the_optional_fields_reads_empty():
    bare = _node(
        description=None,
        estimate=None,
        priority=0,
        parent=None,
        assignee=None,
        archivedAt="2026-01-05T00:00:00Z",
        state={"id": "s", "name": "Todo", "type": "unstarted"},
    )
    issue = issue_from(bare, "ENG")
    assert (issue.body, issue.estimate, issue.priority, issue.parent) == ("", None, None, None)
    assert (issue.workflow_state, issue.assignees, issue.archived) == (None, (), True)


def test_a_comment_gets_a_stable_number_from_its_uuid():
    node = {
        "id": "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        "body": "Looks good.",
        "createdAt": "2026-01-02T03:04:05.000Z",
        "user": {"id": "u", "name": "Ada Lovelace"},
    }
    comment = comment_from(node)
    assert comment.id == comment_from(dict(node)).id
    assert 0 < comment.id < 2**53
    assert (comment.author, comment.body, comment.created_at) == (
        "Ada Lovelace",
        "Looks good.",
        1767323045.0,
    )
    assert comment_from({**node, "user": None}).author == "ghost"


def test_the_sizes_are_the_t_shirt_scale_the_fake_linear_accepts():
    from ralph.linear.fake import ESTIMATE_SCALES  # the fake needs graphql-core: here only
    from ralph.tracker.linear import ESTIMATE_POINTS

    assert tuple(ESTIMATE_POINTS.values()) == ESTIMATE_SCALES["tShirt"][0]
