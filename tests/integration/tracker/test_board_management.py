"""Board management on every tracker (memory, local on SQLite and PostgreSQL, GitHub on
the fake): archiving issues off the lists and the dashboard, status updates, the
hygiene report and the status report read from a real board, and routing applied."""

from __future__ import annotations

import pytest

from ralph.board import (
    apply_route,
    archive_candidates,
    hygiene_report,
    post_status_report,
    route_issue,
    status_report,
)
from ralph.dashboard import DAY_SECONDS, HygieneConfig, ProjectStatus
from ralph.errors import InvalidInput, IssueNotFound, NotAvailable
from ralph.routing import parse_routing
from ralph.tracker import CloseReason, IssueQuery, IssueStatus, dashboard_items
from ralph.workflow import WorkflowState

S = WorkflowState


def keeps_status_updates(tracker) -> None:
    """A Linear team, a Jira project and a GitLab project have none (Linear's updates
    are its projects'): they are refused."""
    if tracker.kind in ("linear", "jira", "gitlab"):
        pytest.skip(f"a {tracker.kind} tracker has no status updates; it refuses them")


def archives(tracker) -> None:
    """Jira archives issues on Premium plans, by an admin only: Ralph refuses (in one
    line, tests/integration/jira)."""
    if tracker.kind == "jira":
        pytest.skip("Ralph does not archive Jira issues; the tracker refuses")


def done(tracker, title, *, days_ago, clock):
    """An issue moved to Done and closed ``days_ago`` days before now."""
    issue = tracker.create_issue(title, state=S.IN_REVIEW)
    tracker.set_state(issue.number, S.DONE, command="ralph_merge")
    tracker.close_issue(issue.number, CloseReason.COMPLETED)
    clock.advance(days_ago * DAY_SECONDS)
    return issue.number


def test_an_archived_issue_leaves_the_lists_and_the_board_but_is_read_by_number(tracker):
    archives(tracker)
    kept = tracker.create_issue("Kept", state=S.BACKLOG).number
    gone = tracker.create_issue("Gone", state=S.BACKLOG).number
    before = tracker.get_issue(gone).updated_at
    assert tracker.archive_issue(gone).archived is True
    assert [i.number for i in tracker.list_issues()] == [kept]
    assert [i.number for i in tracker.list_issues(IssueQuery(archived=None))] == [kept, gone]
    assert [i.number for i in tracker.list_issues(IssueQuery(archived=True))] == [gone]
    assert [i.number for i in dashboard_items(tracker)] == [kept]
    assert {i.number for i in dashboard_items(tracker, archived=True)} == {kept, gone}
    issue = tracker.get_issue(gone)
    assert (issue.archived, issue.title, issue.updated_at) == (True, "Gone", before)
    tracker.archive_issue(gone)  # again: nothing changes
    assert tracker.unarchive_issue(gone).archived is False
    assert [i.number for i in tracker.list_issues()] == [kept, gone]


def test_archiving_an_unknown_issue_is_refused(tracker):
    archives(tracker)
    with pytest.raises(IssueNotFound):
        tracker.archive_issue(99)


def test_an_archived_done_blocker_does_not_show_its_issue_as_blocked(tracker, clock):
    archives(tracker)
    blocker = done(tracker, "Blocker", days_ago=20, clock=clock)
    waiting = tracker.create_issue("Waiting", state=S.RESEARCH_NEEDED).number
    tracker.add_dependency(waiting, blocker)
    tracker.archive_issue(blocker)
    (item,) = dashboard_items(tracker)
    assert item.blocked_by == ((blocker, S.DONE),)
    assert tracker.pick_actionable(command="ralph_research").number == waiting


def test_status_updates_are_posted_listed_newest_first_changed_and_deleted(tracker, clock):
    keeps_status_updates(tracker)
    first = tracker.create_status_update(ProjectStatus.ON_TRACK, "# First")
    clock.advance(60)
    second = tracker.create_status_update(
        ProjectStatus.AT_RISK, "# Second", start_date="2026-03-01", target_date="2026-03-31"
    )
    listed = tracker.list_status_updates()
    assert [u.id for u in listed] == [second.id, first.id]
    assert (listed[0].status, listed[0].body) == (ProjectStatus.AT_RISK, "# Second")
    assert (listed[0].start_date, listed[0].target_date) == ("2026-03-01", "2026-03-31")
    assert listed[1].created_at < listed[0].created_at
    changed = tracker.update_status_update(first.id, status=ProjectStatus.OFF_TRACK)
    assert (changed.status, changed.body) == (ProjectStatus.OFF_TRACK, "# First")
    tracker.delete_status_update(second.id)
    assert [u.id for u in tracker.list_status_updates()] == [first.id]


@pytest.mark.parametrize("bad", ["2026-02-30", "26-03-01", "tomorrow", "2026-3-1", ""])
def test_a_status_update_with_a_bad_date_is_refused_before_anything_is_written(tracker, bad):
    keeps_status_updates(tracker)
    with pytest.raises(InvalidInput, match="YYYY-MM-DD"):
        tracker.create_status_update(ProjectStatus.ON_TRACK, "x", target_date=bad)
    assert tracker.list_status_updates() == []


def test_an_unknown_status_update_is_refused_in_one_line(tracker):
    keeps_status_updates(tracker)
    tracker.create_status_update(ProjectStatus.ON_TRACK, "x")
    for unknown in ("999", "PVTSU_nope", "x\x00y"):
        with pytest.raises(InvalidInput, match="ralph report list"):
            tracker.delete_status_update(unknown)
        with pytest.raises(InvalidInput, match="no status update"):
            tracker.update_status_update(unknown, body="y")
    assert len(tracker.list_status_updates()) == 1


def test_hygiene_archives_exactly_the_done_and_canceled_issues_past_the_threshold(tracker, clock):
    archives(tracker)
    old = done(tracker, "Old", days_ago=10, clock=clock)
    canceled = tracker.create_issue("Dropped", state=S.BACKLOG).number
    tracker.set_state(canceled, S.CANCELED)
    clock.advance(6 * DAY_SECONDS)
    recent = done(tracker, "Recent", days_ago=1, clock=clock)
    open_ = tracker.create_issue("Open", state=S.BACKLOG).number
    report = hygiene_report(tracker, HygieneConfig(archive_days=5))
    assert [i.number for i in report.archive_candidates] == [old, canceled]

    rehearsal = archive_candidates(tracker, report, dry_run=True)
    assert [i.number for i in rehearsal.items] == [old, canceled]
    assert not any(i.archived for i in tracker.list_issues(IssueQuery(status=None)))

    result = archive_candidates(tracker, report)
    assert ([i.number for i in result.items], result.errors) == ([old, canceled], ())
    shown = tracker.list_issues(IssueQuery(status=None))
    assert sorted(i.number for i in shown) == sorted([recent, open_])
    assert hygiene_report(tracker, HygieneConfig(archive_days=5)).archive_candidates == ()


def test_the_status_report_of_a_board_counts_what_was_done_in_the_window(tracker, clock):
    done(tracker, "Shipped long ago", days_ago=10, clock=clock)
    done(tracker, "Shipped", days_ago=2, clock=clock)
    tracker.create_issue("New idea", state=S.BACKLOG)
    report = status_report(tracker, window_days=7)
    assert report.metrics.velocity == 1
    assert report.status is ProjectStatus.ON_TRACK
    assert "1 issue completed in the last 7 days." in report.body
    assert "- #3 New idea" in report.body
    if tracker.kind in (
        "linear",
        "jira",
        "gitlab",
    ):  # no status updates: the refusal says what to do
        with pytest.raises(NotAvailable, match="ralph report --dry-run"):
            post_status_report(tracker, report)
        return
    posted = post_status_report(tracker, report)
    (listed,) = tracker.list_status_updates()
    assert (listed.id, listed.status) == (posted.id, ProjectStatus.ON_TRACK)
    assert listed.body == tracker.stored_text(report.body)


def test_routing_applies_the_state_and_labels_and_refuses_a_move_the_matrix_forbids(tracker):
    number = tracker.create_issue("Crash on save", state=S.BACKLOG, labels=["bug"]).number
    rules = parse_routing(
        "version: 1\nrules:\n"
        "  - match: {labels: {any: [BUG]}}\n"
        "    action: {workflowState: Research Needed, labels: [bug, triaged]}\n"
    )
    decision = route_issue(tracker, rules, number)
    assert (decision.state, decision.labels) == (S.RESEARCH_NEEDED, ("triaged",))
    steps = apply_route(tracker, decision)
    assert [(s.action, s.outcome) for s in steps] == [
        ("state", "moved from Backlog"),
        ("labels", "added"),
    ]
    issue = tracker.get_issue(number)
    assert (issue.workflow_state, issue.labels) == (S.RESEARCH_NEEDED, ("bug", "triaged"))
    assert "ralph route" in issue.comments[-1].body or tracker.kind == "github"

    to_done = parse_routing(
        "version: 1\nrules:\n  - match: {repo: '**'}\n    action: {workflowState: Done}\n"
    )
    refused = route_issue(tracker, to_done, number)
    with pytest.raises(InvalidInput, match="cannot be routed to Done"):
        apply_route(tracker, refused)
    assert tracker.get_issue(number).workflow_state is S.RESEARCH_NEEDED


def test_a_closed_issue_is_still_routed_by_its_labels(tracker):
    number = tracker.create_issue("Old", labels=["ops"]).number
    tracker.close_issue(number)
    rules = parse_routing(
        "version: 1\nrules:\n  - match: {labels: {all: [ops]}}\n    action: {labels: [x]}\n"
    )
    assert route_issue(tracker, rules, number).matched
    assert tracker.get_issue(number).status is IssueStatus.CLOSED
