"""A title, a label, a comment's author and the actor of a move are one line of
printable text on every tracker: a blank one, a newline or an escape sequence is
refused before anything is written."""

from __future__ import annotations

import pytest

from ralph.errors import InvalidInput
from ralph.tracker import IssueQuery, Tracker
from ralph.workflow import WorkflowState

BAD = ["", "   ", "two\nlines", "bell\x07", "\x1b[2Jclear", "nul\x00byte"]


@pytest.mark.parametrize("title", BAD)
def test_a_title_that_is_not_one_line_of_text_creates_nothing(tracker: Tracker, title: str):
    with pytest.raises(InvalidInput):
        tracker.create_issue(title)
    assert tracker.list_issues(IssueQuery()) == []


@pytest.mark.parametrize("label", BAD)
def test_a_label_that_is_not_one_line_of_text_changes_nothing(tracker: Tracker, label: str):
    with pytest.raises(InvalidInput, match="the label"):
        tracker.create_issue("A", labels=["ok", label])
    issue = tracker.create_issue("B", labels=["ok"])
    with pytest.raises(InvalidInput, match="the label"):
        tracker.update_issue(issue.number, labels=[label])
    with pytest.raises(InvalidInput, match="title"):
        tracker.update_issue(issue.number, title=label)
    assert [(i.title, i.labels) for i in tracker.list_issues(IssueQuery())] == [("B", ("ok",))]


@pytest.mark.parametrize("who", ["", "  ", "a\nb"])
def test_a_blank_author_or_actor_is_refused(tracker: Tracker, who: str):
    issue = tracker.create_issue("A", state=WorkflowState.BACKLOG)
    with pytest.raises(InvalidInput, match="the author"):
        tracker.add_comment(issue.number, "hello", author=who)
    with pytest.raises(InvalidInput, match="the actor"):
        tracker.set_state(issue.number, "Research Needed", actor=who)
    after = tracker.get_issue(issue.number)
    assert after.comments == ()
    assert after.workflow_state is WorkflowState.BACKLOG
