"""The LinearTracker on FakeLinear, where Linear differs from the other trackers: closing
is a move (to Done, Canceled or the team's Duplicate), an issue Ralph gives no state
waits in the team's own Todo, status updates and pull requests are refused naming what
to use, and the requests a create and a move cost."""

from __future__ import annotations

import pytest

from ralph.dashboard import ProjectStatus
from ralph.errors import IssueNotFound, NotAvailable, StateConflict
from ralph.tracker import CloseReason, IssueStatus
from ralph.tracker.linear import LinearTracker, set_up_team
from ralph.workflow import SYNC_COMMAND, Estimate, WorkflowState, parse_transition_comments

pytestmark = pytest.mark.timeout(60)

S = WorkflowState


@pytest.fixture
def tracker(fake, client, clock) -> LinearTracker:
    set_up_team(client, "ENG")
    return LinearTracker(client, "ENG", clock=clock)


def state_of(fake, number: int) -> str:
    return str(fake.workspace.issue(f"ENG-{number}").state.name)


def sent(fake, since: int = 0) -> list[str]:
    return [r.name for r in fake.requests[since:]]


@pytest.mark.parametrize(
    ("reason", "state"),
    [
        (CloseReason.COMPLETED, "Done"),
        (CloseReason.NOT_PLANNED, "Canceled"),
        (CloseReason.DUPLICATE, "Duplicate"),
    ],
)
def test_closing_moves_to_the_state_of_its_reason_and_reopening_moves_to_backlog(
    fake, tracker, reason, state
):
    tracker.create_issue("Closing", state=S.IN_PROGRESS)
    closed = tracker.close_issue(1, reason)
    assert (closed.status, closed.close_reason, state_of(fake, 1)) == (
        IssueStatus.CLOSED,
        reason,
        state,
    )
    reopened = tracker.reopen_issue(1)
    assert (reopened.is_open, reopened.workflow_state) == (True, S.BACKLOG)


def test_reopening_an_open_issue_changes_nothing(fake, tracker):
    tracker.create_issue("Open", state=S.IN_PROGRESS)
    writes = len(fake.requests)
    assert tracker.reopen_issue(1).workflow_state is S.IN_PROGRESS
    assert not any(r.mutation for r in fake.requests[writes:])


def test_an_issue_given_no_state_waits_in_the_teams_todo_outside_ralphs_workflow(fake, tracker):
    issue = tracker.create_issue("Idea")
    assert issue.workflow_state is None
    assert state_of(fake, 1) == "Todo"


def test_moving_to_done_closes_the_issue_on_linear(tracker):
    tracker.create_issue("Shipping", state=S.IN_REVIEW)
    tracker.set_state(1, S.DONE, command="ralph_merge")
    issue = tracker.get_issue(1)
    assert (issue.workflow_state, issue.status, issue.close_reason) == (
        S.DONE,
        IssueStatus.CLOSED,
        CloseReason.COMPLETED,
    )


def test_a_move_from_a_state_changed_on_linear_conflicts_and_writes_nothing(fake, tracker):
    tracker.create_issue("Raced", state=S.RESEARCH_NEEDED)
    team = fake.workspace.team("ENG")
    fake.workspace.issue("ENG-1").state = next(
        s for s in team.state_list if s.name == S.HUMAN_NEEDED.value
    )
    writes = len(fake.requests)
    # A move planned from Research Needed, written after a person moved the issue:
    with pytest.raises(StateConflict):
        tracker._write_state(1, S.RESEARCH_NEEDED, S.RESEARCH_IN_PROGRESS, "audit", "ralph")
    assert not any(r.mutation for r in fake.requests[writes:])
    assert state_of(fake, 1) == S.HUMAN_NEEDED.value


def test_status_updates_are_refused_naming_the_dry_run(tracker):
    with pytest.raises(NotAvailable, match="ralph report --dry-run"):
        tracker.create_status_update(ProjectStatus.ON_TRACK, "# Report")
    with pytest.raises(NotAvailable, match="no status updates"):
        tracker.list_status_updates()


def test_a_linear_tracker_has_no_pull_request_methods_they_are_the_code_hosts(tracker):
    assert not hasattr(tracker, "create_pull_request")
    assert not hasattr(tracker, "list_pull_requests")


def test_an_unknown_number_is_issue_not_found_naming_the_team(tracker):
    with pytest.raises(IssueNotFound, match="ENG"):
        tracker.get_issue(7)


def test_a_create_costs_one_request_and_a_move_a_read_and_one_write(fake, tracker):
    tracker.list_issues()  # the team read once, as a running tracker has
    before = len(fake.requests)
    tracker.create_issue("Counted", state=S.RESEARCH_NEEDED, estimate=Estimate.S)
    assert sent(fake, before) == ["CreateIssue"]
    before = len(fake.requests)
    tracker._write_state(1, S.RESEARCH_NEEDED, S.RESEARCH_IN_PROGRESS, "audit", "ralph")
    assert sent(fake, before) == ["IssueByNumber", "MoveIssue"]
    before = len(fake.requests)
    tracker.set_state(1, S.READY_FOR_PLAN, command="ralph_research")
    # set_state reads the issue (with its comments, together) to check the move; the
    # write re-reads its state just before moving it (inside a snapshot: as kept)
    assert sent(fake, before) == ["IssueWithComments", "IssueByNumber", "MoveIssue"]


def test_an_issue_with_more_comments_than_a_page_reads_them_all_in_order(fake, tracker):
    tracker.create_issue("Talkative")
    for n in range(53):
        tracker.add_comment(1, f"comment {n}")
    comments = tracker.get_issue(1).comments
    assert [c.body for c in comments] == [f"comment {n}" for n in range(53)]
    assert sent(fake)[-2:] == ["IssueWithComments", "IssueComments"]


def test_a_close_or_reopen_that_moves_the_state_is_audited_so_the_last_marker_is_the_state(
    tracker,
):
    tracker.create_issue("Obsolete", state=S.IN_PROGRESS)
    tracker.close_issue(1, CloseReason.NOT_PLANNED)
    tracker.reopen_issue(1)
    issue = tracker.get_issue(1)
    records = parse_transition_comments("\n".join(c.body for c in issue.comments))
    assert [(r.from_state, r.to_state, r.command) for r in records] == [
        (S.IN_PROGRESS.value, S.CANCELED.value, SYNC_COMMAND),
        (S.CANCELED.value, S.BACKLOG.value, SYNC_COMMAND),
    ]
    assert issue.workflow_state is S.BACKLOG


def test_a_parent_with_more_children_than_linear_nests_in_one_read_lists_them_all(fake, tracker):
    epic = tracker.create_issue("Epic").number
    for n in range(52):
        tracker.create_issue(f"Part {n}", parent=epic)
    before = len(fake.requests)
    assert tracker.get_issue(epic).sub_issues == tuple(range(2, 54))
    assert sent(fake, before) == ["IssueWithComments", "IssueChildren"]
    (listed,) = [i for i in tracker.list_issues() if i.number == epic]
    assert len(listed.sub_issues) == 52


def test_an_issue_has_its_url_on_linear(tracker):
    tracker.create_issue("Fix the login (again)!")
    expected = "https://linear.app/acme/issue/ENG-1/fix-the-login-again"
    assert tracker.get_issue(1).url == expected
    assert [i.url for i in tracker.list_issues()] == [expected]


def test_an_issue_with_more_labels_than_linear_nests_in_one_read_keeps_them_all(fake, tracker):
    names = [f"area-{n:02}" for n in range(12)]
    tracker.create_issue("Many labels", labels=names)
    before = len(fake.requests)
    assert sorted(tracker.get_issue(1).labels) == names
    assert sent(fake, before) == ["IssueWithComments", "IssueLabels"]
    (listed,) = tracker.list_issues()
    assert sorted(listed.labels) == names


def test_an_issue_blocking_more_than_linear_nests_in_one_read_lists_them_all(tracker):
    blocker = tracker.create_issue("Blocker").number
    for n in range(27):
        tracker.add_dependency(tracker.create_issue(f"Waits {n}").number, blocker)
    assert tracker.get_issue(blocker).blocking == tuple(range(2, 29))


def test_inside_a_snapshot_an_issue_is_read_once_with_its_relatives_in_one_more_request(
    fake, tracker
):
    epic = tracker.create_issue("Epic").number
    parts = [tracker.create_issue(f"Part {n}", parent=epic).number for n in range(3)]
    tracker.add_dependency(parts[1], parts[0])
    before = len(fake.requests)
    with tracker.snapshot():
        tracker.get_issue(epic)
        for number in (epic, *parts, epic):
            tracker.get_issue(number)
    # the epic, then its children together (their blockers are among them)
    assert sent(fake, before) == ["IssuesWithComments", "IssuesWithComments"]


def test_a_snapshots_own_writes_keep_its_issues_true_without_reading_them_again(fake, tracker):
    tracker.create_issue("Kept", state=S.RESEARCH_NEEDED)
    with tracker.snapshot():
        tracker.get_issue(1)
        before = len(fake.requests)
        tracker.set_state(1, S.READY_FOR_PLAN, command="ralph_research")
        tracker.add_comment(1, "a note")
        tracker.update_issue(1, estimate=Estimate.S)
        issue = tracker.get_issue(1)
    assert sent(fake, before) == ["MoveIssue", "CreateComment", "UpdateIssue"]
    fresh = tracker.get_issue(1)
    assert (issue.workflow_state, issue.estimate) == (S.READY_FOR_PLAN, Estimate.S)
    assert [c.body for c in issue.comments] == [c.body for c in fresh.comments]
    assert (fresh.workflow_state, fresh.estimate) == (issue.workflow_state, issue.estimate)


def test_a_move_inside_a_snapshot_still_refuses_a_state_it_does_not_expect(tracker):
    tracker.create_issue("Moved", state=S.RESEARCH_NEEDED)
    with tracker.snapshot():
        tracker.get_issue(1)
        tracker._write_state(1, S.RESEARCH_NEEDED, S.RESEARCH_IN_PROGRESS, "audit", "ralph")
        with pytest.raises(StateConflict):
            tracker._write_state(1, S.RESEARCH_NEEDED, S.RESEARCH_IN_PROGRESS, "audit", "ralph")


def test_a_relation_written_inside_a_snapshot_is_read_again_on_both_issues(tracker):
    first, second = (tracker.create_issue(t).number for t in ("First", "Second"))
    with tracker.snapshot():
        assert tracker.get_issue(second).blocked_by == ()
        tracker.add_dependency(second, first)
        assert tracker.get_issue(second).blocked_by == (first,)
        assert tracker.get_issue(first).blocking == (second,)


def test_seen_issues_are_the_last_read_and_only_the_unseen_are_read_together(fake, client, tracker):
    other = LinearTracker(client, "ENG")  # another process's writes
    for title in ("One", "Two", "Three"):
        other.create_issue(title)
    tracker.get_issue(1)
    before = len(fake.requests)
    assert [i.title for i in tracker.seen_issues([1, 2, 3])] == ["One", "Two", "Three"]
    assert sent(fake, before) == ["IssuesWithComments"]
    before = len(fake.requests)
    tracker.seen_issues([3, 2, 1])
    assert sent(fake, before) == []


def test_a_note_inside_a_snapshot_goes_with_the_next_move_or_alone_at_its_end(fake, tracker):
    tracker.create_issue("Noted", state=S.RESEARCH_NEEDED)
    tracker.create_issue("Other")
    with tracker.snapshot():
        tracker.get_issue(1)
        before = len(fake.requests)
        tracker.add_note(1, "## Research Document")
        tracker.add_note(2, "## A note no move takes")
        assert sent(fake, before) == []
        tracker.set_state(1, S.RESEARCH_IN_PROGRESS, command="ralph_research")
    assert sent(fake, before) == ["MoveIssueNoted", "CreateComment"]
    bodies = [c.body for c in tracker.get_issue(1).comments]
    assert bodies[0] == "## Research Document"
    assert "Research Needed" in bodies[1]
    assert [c.body for c in tracker.get_issue(2).comments] == ["## A note no move takes"]


def test_the_board_reads_open_issues_and_those_closed_in_the_window_in_one_lean_read(
    fake, tracker, clock
):
    tracker.create_issue("Closed long ago", state=S.IN_PROGRESS)
    tracker.close_issue(1)
    clock.advance(30 * 86400)
    tracker.create_issue("Closed lately", state=S.IN_PROGRESS)
    tracker.close_issue(2)
    tracker.create_issue("Open", state=S.IN_PROGRESS)
    before = len(fake.requests)
    shown = tracker.board_issues(closed_since=clock() - 86400)
    assert [i.number for i in shown] == [2, 3]
    assert sent(fake, before) == ["BoardRows"]  # no issue is blocked: no links
    assert [i.number for i in tracker.board_issues()] == [1, 2, 3]
