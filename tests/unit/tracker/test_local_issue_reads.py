"""The local tracker's issues as read from its rows: the quick construction gives the
same issue the dataclass would, and the board's lean read gives what a dashboard shows."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from ralph.db import open_database
from ralph.tracker import Issue, IssueQuery, LocalTracker
from ralph.tracker._model import CloseReason, IssueStatus
from ralph.tracker.local._tracker import _made_issue
from ralph.workflow import Estimate, Priority, WorkflowState


def test_a_quickly_made_issue_is_the_issue_the_dataclass_makes():
    values: dict[str, Any] = {
        "number": 7,
        "title": "A title",
        "body": "A body",
        "workflow_state": WorkflowState.BACKLOG,
        "estimate": Estimate.S,
        "priority": Priority.P1,
        "labels": ("ui",),
        "status": IssueStatus.CLOSED,
        "close_reason": CloseReason.COMPLETED,
        "parent": 3,
        "blocked_by": (2,),
        "created_at": 1.0,
        "updated_at": 2.0,
        "closed_at": 3.0,
        "url": "local:r#7",
    }
    made, expected = _made_issue(**values), Issue(**values)
    assert made == expected
    assert [getattr(made, f.name) for f in fields(Issue)] == [
        getattr(expected, f.name) for f in fields(Issue)
    ]
    assert hash(made.number) == hash(expected.number)


def test_the_board_read_has_what_a_dashboard_shows_in_the_listing_order():
    tracker = LocalTracker(open_database("memory://"), repo="r")
    epic = tracker.create_issue("Epic", body="Long text", labels=["ui"], priority=Priority.P2)
    first = tracker.create_issue("First", parent=epic.number, priority=Priority.P0)
    second = tracker.create_issue("Second", parent=epic.number, state=WorkflowState.BACKLOG)
    tracker.add_dependency(second.number, first.number)
    tracker.close_issue(first.number)
    listed = tracker.list_issues(IssueQuery(status=None, archived=None))
    board = tracker.board_issues()
    assert [i.number for i in board] == [i.number for i in listed]
    for lean, whole in zip(board, listed, strict=True):
        for name in ("title", "workflow_state", "priority", "status", "parent", "blocked_by"):
            assert getattr(lean, name) == getattr(whole, name)
    assert tracker.board_issues(closed_since=tracker.now() + 1) == [
        i for i in board if i.number != first.number
    ]
