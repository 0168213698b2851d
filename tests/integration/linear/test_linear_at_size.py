"""The reads a person or ``ralph serve`` repeats on a Linear team of 2,000 issues stay
within an API key's budgets (250,000 complexity points and 5,000 requests an hour, under
half of the 10,000-point cap a request), with the fake spending them as Linear does."""

from __future__ import annotations

import pytest

from ralph.linear.fake._seed import seed_team
from ralph.tracker import IssueQuery
from ralph.tracker.linear import LinearTracker, set_up_team

pytestmark = pytest.mark.timeout(120)

HOUR_POINTS = 250_000
HALF_CAP = 5_000
DAY = 86400.0


@pytest.fixture
def seeded(fake, client, clock):
    set_up_team(client, "ENG")
    return seed_team(fake, "ENG", 2_000)


def spent(fake, since: int) -> tuple[int, int, int]:
    """Requests, points and the largest request's points since request ``since``."""
    made = fake.requests[since:]
    assert all(r.status == 200 for r in made), [(r.name, r.status) for r in made]
    return len(made), sum(r.complexity for r in made), max(r.complexity for r in made)


def test_issue_list_and_status_read_the_open_issues_not_the_team(fake, client, clock, seeded):
    tracker = LinearTracker(client, "ENG", clock=clock)
    before = len(fake.requests)
    listed = tracker.list_issues(IssueQuery())
    assert len(listed) == seeded.open == 300
    requests, points, largest = spent(fake, before)
    assert (requests, largest) <= (8, HALF_CAP)
    assert points < HOUR_POINTS / 20  # a person may list 20 times an hour
    before = len(fake.requests)
    status = LinearTracker(client, "ENG", clock=clock)  # ralph status: a process of its own
    board = status.board_issues(closed_since=clock() - 14 * DAY)
    assert 300 < len(board) < 400  # the open ones and those closed in the fortnight
    requests, points, largest = spent(fake, before)
    assert (requests, largest) <= (5, HALF_CAP)
    assert points < HOUR_POINTS / 30


def test_an_idle_serve_hour_asks_only_what_changed(fake, client, clock, seeded):
    tracker = LinearTracker(client, "ENG", clock=clock)
    before = len(fake.requests)
    board = tracker.list_issues(IssueQuery(status=None))
    assert len(board) < 400  # open, closed lately, and what those name; not 2,000
    _requests, points, largest = spent(fake, before)
    assert largest <= HALF_CAP
    assert points < HOUR_POINTS / 20
    before = len(fake.requests)
    for _ in range(12):  # a poll every five minutes
        clock.advance(300)
        assert len(tracker.list_issues(IssueQuery(status=None))) == len(board)
    assert [r.name for r in fake.requests[before:]] == ["TeamChanges"] * 12
    assert spent(fake, before)[1] == 12 * 14


def test_a_busy_hour_reads_only_the_issues_that_changed(fake, client, clock, seeded):
    tracker = LinearTracker(client, "ENG", clock=clock)
    tracker.list_issues(IssueQuery(status=None))
    open_issues = [
        i for i in seeded.team.issue_list if i.state.type not in ("completed", "canceled")
    ]
    before = len(fake.requests)
    for n in range(120):  # a poll every 30 s, a person's edit before each
        clock.advance(30)
        open_issues[n].title = f"Edited {n}"
        open_issues[n].updatedAt = fake.workspace.now()
        (found,) = [i for i in tracker.list_issues(IssueQuery()) if i.title == f"Edited {n}"]
        assert found.number == open_issues[n].number
    requests, points, _largest = spent(fake, before)
    assert requests <= 120 * 3
    assert points < HOUR_POINTS / 10
