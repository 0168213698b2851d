"""The reads a person or ``ralph serve`` repeats on a Linear team of 2,000 issues stay
within an API key's budgets (250,000 complexity points and 5,000 requests an hour, under
half of the 10,000-point cap a request), with the fake spending them as Linear does."""

from __future__ import annotations

import pytest

from ralph.linear.fake._seed import seed_team
from ralph.tracker import IssueQuery
from ralph.tracker.linear import LinearTracker, issue_from, set_up_team
from ralph.tracker.linear import _reads as r
from ralph.tracker.linear import _writes as w
from ralph.tracker.linear._mapping import number_of
from ralph.tracker.linear._team import read_team

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
    board = tracker.list_issues(IssueQuery(status=None, board=True))
    assert len(board) < 400  # open, closed lately, and what those name; not 2,000
    _requests, points, largest = spent(fake, before)
    assert largest <= HALF_CAP
    assert points < HOUR_POINTS / 20
    before = len(fake.requests)
    for _ in range(12):  # a poll every five minutes
        clock.advance(300)
        assert len(tracker.list_issues(IssueQuery(status=None, board=True))) == len(board)
    assert [r.name for r in fake.requests[before:]] == ["TeamChanges"] * 12
    assert spent(fake, before)[1] == 12 * 50


def test_a_busy_hour_reads_only_the_issues_that_changed(fake, client, clock, seeded):
    tracker = LinearTracker(client, "ENG", clock=clock)
    tracker.list_issues(IssueQuery(status=None, board=True))
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


def test_rows_and_their_links_read_each_issue_as_a_whole_read_does(fake, client, clock):
    """The cheaper shape loses nothing: every field, label, sub-issue and relation of
    each issue, overflowing pages too (an epic of 12 children, an issue of 5 labels)."""
    set_up_team(client, "ENG")
    seeded = seed_team(fake, "ENG", 120, open_share=0.5)
    epic, *rest = [i for i in seeded.team.issue_list if i.archivedAt is None]
    for child in rest[:12]:
        if child.parent is not None:
            child.parent.child_list.remove(child)
        child.parent = epic
        epic.child_list.append(child)
    for name in ("a", "b", "c", "d", "e"):
        rest[20].label_list.append(fake.add_label(name, seeded.team))
    team = read_team(client, "ENG")
    rows = r.read_rows(client, r.team_filter(team), archived=True)
    assert len(rows) == 120
    for node in rows:
        whole = w.issue_by_number(client, team, number_of(node["identifier"]))
        assert issue_from(node, "ENG") == issue_from(w.completed(client, whole), "ENG")
    by_number = {issue_from(n, "ENG").number: issue_from(n, "ENG") for n in rows}
    assert len(by_number[epic.number].sub_issues) >= 12
    assert len(by_number[rest[20].number].labels) >= 5
