"""A Linear team's board read once, then kept while Linear says nothing changed, and
corrected by what changed: ``ralph serve`` and the web board read the board on every
poll, and a read of it costs thousands of points where asking whether anything changed
costs 14."""

from __future__ import annotations

import pytest

from ralph.linear import LinearClient, LinearError
from ralph.linear.fake import ScriptedFault
from ralph.tracker import IssueQuery
from ralph.tracker.linear import LinearTracker, set_up_team
from ralph.tracker.linear._reads import stamp
from ralph.tracker.linear._team_reads import BOARD_CLOSED_DAYS, OVERLAP
from ralph.workflow import WorkflowState

pytestmark = pytest.mark.timeout(60)

S = WorkflowState
#: What the loop, its reconciliation and the web board ask.
EVERY = IssueQuery(status=None, board=True)
DAY = 86400.0


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
    for _ in range(12):  # an hour of polls
        clock.advance(300)
        assert [i.title for i in tracker.list_issues(EVERY)] == ["Wave", "Bow"]
    assert sent(fake, before) == ["TeamChanges"] * 12
    assert sum(r.complexity for r in fake.requests[before:]) == 12 * 50


def test_a_persons_change_is_read_alone_at_the_next_look(fake, tracker, clock):
    tracker.list_issues(EVERY)
    fake.add_token("lin_api_person", "Grace Hopper")
    person = LinearTracker(LinearClient(fake, "lin_api_person", clock=clock), "ENG", clock=clock)
    clock.advance(30)
    person.update_issue(2, title="Bow deeply")
    before = len(fake.requests)
    assert [i.title for i in tracker.list_issues(EVERY)] == ["Wave", "Bow deeply"]
    assert sent(fake, before) == ["TeamChanges", "IssueRows"]
    # A page the size of what changed: Linear prices a page by its size, not its issues.
    assert fake.requests[-1].complexity < 25


def test_many_issues_updated_at_one_instant_are_not_read_again_and_again(fake, tracker, clock):
    for n in range(8):
        tracker.create_issue(f"Bulk {n}", state=S.BACKLOG)
    for issue in fake.workspace.team("ENG").issue_list:  # one bulk edit
        issue.updatedAt = "2027-01-01T00:00:00.000Z"
    tracker.list_issues(EVERY)
    before = len(fake.requests)
    tracker.list_issues(EVERY)
    assert sent(fake, before) == ["TeamChanges"]


def test_its_own_write_is_read_again_even_when_linear_leaves_updated_at(fake, tracker):
    tracker.list_issues(EVERY)
    tracker.add_dependency(2, 1)  # the fake, like Linear perhaps, moves no updatedAt
    before = len(fake.requests)
    (bow,) = [i for i in tracker.list_issues(EVERY) if i.number == 2]
    assert bow.blocked_by == (1,)
    assert sent(fake, before) == ["TeamChanges", "IssueRows", "RelationsOf", "InverseRelationsOf"]


def test_the_board_leaves_out_closed_issues_of_long_ago_that_nothing_names(fake, tracker, clock):
    epic = tracker.create_issue("Epic", state=S.IN_PROGRESS)
    child = tracker.create_issue("Old child", parent=epic.number, state=S.DONE)
    old = tracker.create_issue("Old and alone", state=S.DONE)
    recent = tracker.create_issue("Done last week", state=S.DONE)
    issues = {i.title: i for i in fake.workspace.team("ENG").issue_list}
    long_ago = stamp(clock() - 2 * BOARD_CLOSED_DAYS * DAY)
    for title in ("Old child", "Old and alone"):
        issues[title].updatedAt = long_ago
    issues["Done last week"].updatedAt = stamp(clock() - 7 * DAY)
    board = {i.number for i in tracker.list_issues(EVERY)}
    assert {epic.number, child.number, recent.number} <= board
    assert old.number not in board
    # Asked for closed issues, Linear is asked for every one of them.
    closed = {i.number for i in tracker.list_issues(IssueQuery(status=None, states=[S.DONE]))}
    assert closed == {child.number, old.number, recent.number}
    # So is a person's ask for every issue (`ralph issue list --all`, the MCP list tool).
    every = {i.number for i in tracker.list_issues(IssueQuery(status=None))}
    assert every == {1, 2, epic.number, child.number, old.number, recent.number}


def test_a_closed_issue_an_open_one_comes_to_name_joins_the_board(fake, tracker, clock):
    old = tracker.create_issue("Old blocker", state=S.DONE)
    fake.workspace.team("ENG").issue_list[-1].updatedAt = stamp(clock() - 400 * DAY)
    assert old.number not in {i.number for i in tracker.list_issues(EVERY)}
    tracker.add_dependency(1, old.number)
    board = {i.number: i for i in tracker.list_issues(EVERY)}
    assert board[1].blocked_by == (old.number,)
    assert board[old.number].title == "Old blocker"


def test_open_issues_come_from_a_kept_board(fake, tracker):
    tracker.list_issues(EVERY)
    before = len(fake.requests)
    assert [i.title for i in tracker.list_issues(IssueQuery())] == ["Wave", "Bow"]
    assert sent(fake, before) == ["TeamChanges"]


def test_the_dashboard_is_read_once_then_asked_about(fake, tracker, clock):
    assert [i.title for i in tracker.board_issues(closed_since=clock() - DAY)] == ["Wave", "Bow"]
    before = len(fake.requests)
    clock.advance(60)
    assert [i.title for i in tracker.board_issues(closed_since=clock() - DAY)] == ["Wave", "Bow"]
    assert sent(fake, before) == ["TeamChanges"]
    # A wider window than the kept one is read again.
    tracker.board_issues(closed_since=clock() - 30 * DAY)
    assert sent(fake, before)[1:] == ["TeamChanges", "BoardRows"]


def test_an_edit_made_while_a_read_turns_pages_is_seen_at_the_next_look(
    fake, tracker, client, clock, monkeypatch
):
    for n in range(3, 56):  # two pages: the first holds 50
        tracker.create_issue(f"Issue {n}", state=S.BACKLOG)
    fake.add_token("lin_api_person", "Grace Hopper")
    person = LinearTracker(LinearClient(fake, "lin_api_person", clock=clock), "ENG", clock=clock)
    clock.advance(3600)
    pages = client.pages

    def edited_between_pages(*args, **kwargs):  # page 1 read, then a person edits
        clock.advance(1)
        person.update_issue(1, title="Wave edited")  # on page 1, read before the edit
        clock.advance(1)
        person.update_issue(55, title="Issue 55 edited")  # on page 2, read after it
        monkeypatch.setattr(client, "pages", pages)
        yield from pages(*args, **kwargs)

    monkeypatch.setattr(client, "pages", edited_between_pages)
    first = {i.number: i.title for i in tracker.list_issues(EVERY)}
    assert (first[1], first[55]) == ("Wave", "Issue 55 edited")
    clock.advance(300)
    again = {i.number: i.title for i in tracker.list_issues(EVERY)}
    assert (again[1], again[55]) == ("Wave edited", "Issue 55 edited")


def test_what_it_wrote_is_read_again_after_a_look_that_failed(fake, tracker):
    tracker.list_issues(EVERY)
    tracker.add_dependency(2, 1)  # no updatedAt moves: known only as written here
    fake.script(*[ScriptedFault.server_error("IssueRows")] * 4)  # past the client's retries
    with pytest.raises(LinearError):
        tracker.list_issues(EVERY)
    (bow,) = [i for i in tracker.list_issues(EVERY) if i.number == 2]
    assert bow.blocked_by == (1,)


def test_a_bulk_edit_is_read_once_by_ids_then_only_asked_about(fake, tracker, clock):
    for n in range(3, 31):
        tracker.create_issue(f"Issue {n}", state=S.BACKLOG)
    clock.advance(3600)
    tracker.list_issues(EVERY)
    clock.advance(30)
    for issue in fake.workspace.team("ENG").issue_list:  # one bulk edit, one instant
        issue.title = f"Bulk {issue.number}"
        issue.updatedAt = fake.workspace.now()
    before = len(fake.requests)
    assert {i.title for i in tracker.list_issues(EVERY)} == {f"Bulk {n}" for n in range(1, 31)}
    assert sent(fake, before) == ["TeamChanges", "TeamChanges", "IssueRows"]
    before = len(fake.requests)
    clock.advance(30)  # still within the overlap: asked about, not read again
    tracker.list_issues(EVERY)
    assert sent(fake, before) == ["TeamChanges", "TeamChanges"]
    clock.advance(OVERLAP)
    tracker.list_issues(EVERY)  # a look begun past the overlap: the last to reach back
    before = len(fake.requests)
    clock.advance(30)
    tracker.list_issues(EVERY)
    assert sent(fake, before) == ["TeamChanges"]
