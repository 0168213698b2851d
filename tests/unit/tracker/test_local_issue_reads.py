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


def test_the_kept_board_read_shows_every_kind_of_change(tmp_path):
    """On SQLite the board read is kept until a write counts a change: each write that
    touches an issue or a dependency shows in the next read, from this tracker or
    another on the same file."""
    from ralph.db import SqliteDatabase

    db = SqliteDatabase(tmp_path / "ralph.db")
    tracker = LocalTracker(db, repo="r")
    other = LocalTracker(db, repo="r")

    def shown(number: int) -> Issue:
        return next(i for i in tracker.board_issues() if i.number == number)

    epic = tracker.create_issue("Epic", estimate=Estimate.L)
    child = tracker.create_issue("Child", state=WorkflowState.RESEARCH_NEEDED)
    assert [i.number for i in tracker.board_issues()] == [epic.number, child.number]
    other.add_sub_issue(epic.number, child.number)
    assert shown(child.number).parent == epic.number
    other.add_dependency(child.number, epic.number)
    assert shown(child.number).blocked_by == (epic.number,)
    other.remove_dependency(child.number, epic.number)
    assert shown(child.number).blocked_by == ()
    other.set_state(child.number, "__LOCK__", command="research")
    assert shown(child.number).workflow_state is WorkflowState.RESEARCH_IN_PROGRESS
    other.update_issue(child.number, title="Renamed", priority=Priority.P0)
    assert (shown(child.number).title, shown(child.number).priority) == ("Renamed", Priority.P0)
    other.project_board().clear_field(epic.number, "Estimate")
    assert shown(epic.number).estimate is None
    before = shown(child.number).updated_at
    other.add_comment(child.number, "A note")
    assert shown(child.number).updated_at >= before
    other.archive_issue(child.number)
    assert shown(child.number).archived
    other.close_issue(epic.number)
    assert shown(epic.number).status is IssueStatus.CLOSED
    assert [i.number for i in tracker.board_issues(closed_since=tracker.now() + 60)] == [
        child.number
    ]
    other.reopen_issue(epic.number)
    assert shown(epic.number).status is IssueStatus.OPEN
    db.close()
