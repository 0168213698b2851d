"""Which issues a query matches: every filter narrows, an empty one means "any"."""

from __future__ import annotations

import pytest

from ralph.tracker import Issue, IssueQuery, IssueStatus
from ralph.workflow import Estimate, WorkflowState

ISSUE = Issue(
    number=7,
    title="Login page times out",
    body="Users on SLOW networks see a blank page.",
    workflow_state=WorkflowState.RESEARCH_NEEDED,
    estimate=Estimate.S,
    labels=("bug", "web"),
    parent=3,
    updated_at=100.0,
)


def test_an_empty_query_matches_any_open_issue_and_no_closed_one():
    assert IssueQuery().matches(ISSUE)
    closed = Issue(number=8, title="Done", status=IssueStatus.CLOSED)
    assert not IssueQuery().matches(closed)
    assert IssueQuery(status=None).matches(closed)
    assert IssueQuery(status=IssueStatus.CLOSED).matches(closed)


@pytest.mark.parametrize(
    ("query", "matches"),
    [
        (IssueQuery(states=[WorkflowState.RESEARCH_NEEDED, WorkflowState.BACKLOG]), True),
        (IssueQuery(states=[WorkflowState.BACKLOG]), False),
        (IssueQuery(estimates=[Estimate.S]), True),
        (IssueQuery(estimates=[Estimate.M, Estimate.L]), False),
        (IssueQuery(labels=["bug"]), True),
        (IssueQuery(labels=["bug", "web"]), True),
        (IssueQuery(labels=["bug", "docs"]), False),
        (IssueQuery(text="LOGIN"), True),
        (IssueQuery(text="slow net"), True),
        (IssueQuery(text="crash"), False),
        (IssueQuery(has_parent=True), True),
        (IssueQuery(has_parent=False), False),
        (IssueQuery(parent=3), True),
        (IssueQuery(parent=4), False),
        (IssueQuery(updated_since=100.0), True),
        (IssueQuery(updated_since=100.5), False),
        (IssueQuery(states=[WorkflowState.RESEARCH_NEEDED], labels=["docs"]), False),
    ],
    ids=[
        "state-among",
        "state-other",
        "estimate-among",
        "estimate-other",
        "label",
        "all-labels",
        "a-label-missing",
        "text-in-title-any-case",
        "text-in-body-any-case",
        "text-absent",
        "has-parent",
        "has-no-parent",
        "parent",
        "other-parent",
        "updated-at-the-instant",
        "updated-before",
        "filters-are-anded",
    ],
)
def test_each_filter_narrows(query, matches):
    assert query.matches(ISSUE) is matches


def test_an_issue_off_the_board_or_unestimated_matches_only_queries_that_do_not_ask():
    bare = Issue(number=9, title="Untriaged")
    assert IssueQuery().matches(bare)
    assert not IssueQuery(states=list(WorkflowState)).matches(bare)
    assert not IssueQuery(estimates=list(Estimate)).matches(bare)
    assert IssueQuery(has_parent=False).matches(bare)


def test_archived_issues_are_left_out_unless_asked_for():
    archived = Issue(number=9, title="Old", archived=True)
    assert not IssueQuery().matches(archived)
    assert IssueQuery(archived=None).matches(archived)
    assert IssueQuery(archived=True).matches(archived)
    assert not IssueQuery(archived=True).matches(ISSUE)
