"""A Linear team's board read whole once, then kept while Linear says nothing changed:
``ralph serve`` and the web board read the board on every poll, and a full read costs
thousands of points where asking whether anything changed costs a few."""

from __future__ import annotations

import pytest

from ralph.linear import LinearClient
from ralph.tracker import IssueQuery
from ralph.tracker.linear import LinearTracker, set_up_team
from ralph.tracker.linear._team_reads import FULL_READ_SECONDS
from ralph.workflow import WorkflowState

pytestmark = pytest.mark.timeout(60)

S = WorkflowState
EVERY = IssueQuery(status=None)


@pytest.fixture
def tracker(fake, client, clock) -> LinearTracker:
    set_up_team(client, "ENG")
    made = LinearTracker(client, "ENG", clock=clock)
    made.create_issue("Wave", state=S.BACKLOG)
    made.create_issue("Bow", state=S.BACKLOG)
    return made


def sent(fake, since: int) -> list[str]:
    return [r.name for r in fake.requests[since:]]


def test_a_board_nobody_changed_is_asked_about_not_read_again(fake, tracker, clock):
    tracker.list_issues(EVERY)
    before = len(fake.requests)
    clock.advance(30)
    assert [i.title for i in tracker.list_issues(EVERY)] == ["Wave", "Bow"]
    assert sent(fake, before) == ["TeamChanges"]


def test_a_persons_change_on_linear_is_read_at_the_next_look(fake, tracker, clock):
    tracker.list_issues(EVERY)
    fake.add_token("lin_api_person", "Grace Hopper")
    person = LinearTracker(LinearClient(fake, "lin_api_person", clock=clock), "ENG", clock=clock)
    clock.advance(30)
    person.update_issue(2, title="Bow deeply")
    before = len(fake.requests)
    assert [i.title for i in tracker.list_issues(EVERY)] == ["Wave", "Bow deeply"]
    assert sent(fake, before) == ["TeamChanges", "TeamIssues"]


def test_after_its_own_write_the_tracker_reads_the_board_whole(fake, tracker, clock):
    tracker.list_issues(EVERY)
    tracker.add_dependency(2, 1)  # a relation may leave no updatedAt behind
    before = len(fake.requests)
    (bow,) = [i for i in tracker.list_issues(EVERY) if i.number == 2]
    assert bow.blocked_by == (1,)
    assert sent(fake, before) == ["TeamIssues"]


def test_a_kept_board_is_read_whole_again_after_a_while(fake, tracker, clock):
    tracker.list_issues(EVERY)
    clock.advance(FULL_READ_SECONDS)
    before = len(fake.requests)
    tracker.list_issues(EVERY)
    assert sent(fake, before) == ["TeamIssues"]
