"""Fixes from a review of the Jira tracker: transitions sent with only the fields
their screen has, a lost create found by a relative date, transitions kept by issue type
and status, snapshots dropped after a write too, searches bounded, and text from Jira
made printable."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from ralph._graphql_http import Reply
from ralph._rest_http import RestRequest
from ralph.errors import NotAvailable, StateConflict
from ralph.jira import JiraClient
from ralph.jira.fake import FakeJira, ScriptedFault
from ralph.tracker.jira import JiraTracker
from ralph.workflow import WorkflowState

from ...conftest import FakeClock

S = WorkflowState


class _Between:
    """The fake, with ``hook`` run once just before the first request ``when`` picks
    reaches it (another thread's read between a write's start and its send)."""

    def __init__(self, fake: FakeJira, when: Callable[[RestRequest], bool]) -> None:
        self.fake = fake
        self.when = when
        self.hook: Callable[[], None] | None = None

    def send(self, request: RestRequest) -> Reply:
        hook, self.hook = (self.hook, None) if self.when(request) else (None, self.hook)
        if hook is not None:
            hook()
        return self.fake.send(request)

    def close(self) -> None:
        return None


def test_a_read_between_a_writes_start_and_its_send_is_dropped_after_it(
    fake: FakeJira, clock: FakeClock
):
    between = _Between(fake, lambda r: r.method == "PUT")
    tracker = JiraTracker(
        JiraClient(between, clock=clock, sleep=clock.advance), "PROJ", clock=clock
    )
    tracker.create_issue("Old", state=S.BACKLOG)
    go, reread, done, seen = threading.Event(), threading.Event(), threading.Event(), []

    def other_step() -> None:
        with tracker.snapshot():
            tracker.get_issue(1)
            assert go.wait(10)
            tracker.get_issue(1)  # the write dropped it: read again, still the old title
            reread.set()
            assert done.wait(10)
            seen.append(tracker.get_issue(1).title)

    other = threading.Thread(target=other_step)
    other.start()

    def let_the_other_read() -> None:
        go.set()
        assert reread.wait(10)

    between.hook = let_the_other_read
    tracker.update_issue(1, title="New")
    done.set()
    other.join(10)
    assert seen == ["New"]


def test_doctor_lines_carry_no_control_characters_from_jira(client, clock, fake):
    fake.add_project("ESC", "Esc\x1b[2J\x1b]0;owned\x07\nname")
    checks = JiraTracker(client, "ESC", clock=clock).check()
    assert checks[0].ok, checks[0]
    assert "Esc" in checks[0].detail
    for check in checks:
        assert not {"\x1b", "\x07", "\n"} & set(check.detail), check


def test_closing_sends_a_resolution_only_when_the_transitions_screen_has_one(
    fake: FakeJira, tracker: JiraTracker
):
    from ralph.tracker import CloseReason

    tracker.create_issue("Done one", state=S.IN_PROGRESS)
    tracker.create_issue("Dropped one", state=S.IN_PROGRESS)
    fake.add_screen("PROJ", "Canceled", ("resolution",))
    assert tracker.close_issue(1).workflow_state is S.DONE  # no screen: no resolution sent
    assert tracker.close_issue(2, CloseReason.NOT_PLANNED).workflow_state is S.CANCELED
    assert [i.resolution for i in fake.site.issues.values()] == ["Done", "Won't Do"]
    assert not [r for r in fake.requests if r.status == 400]


def test_a_fake_transition_refuses_a_field_its_screen_lacks(fake: FakeJira, client: JiraClient):
    from ralph.jira import JiraInvalid

    client.post(
        "/issue",
        {"fields": {"project": {"key": "PROJ"}, "issuetype": {"name": "Task"}, "summary": "One"}},
    )
    done = fake.site.projects["PROJ"].status("Done")
    assert done is not None
    body = {"transition": {"id": done.id}, "fields": {"resolution": {"name": "Done"}}}
    with pytest.raises(JiraInvalid, match="not on the appropriate screen"):
        client.post("/issue/PROJ-1/transitions", body)
    fake.add_screen("PROJ", "Done")
    [offered] = [
        t
        for t in client.get("/issue/PROJ-1/transitions", [("expand", "transitions.fields")])[
            "transitions"
        ]
        if t["id"] == done.id
    ]
    assert offered["hasScreen"]
    assert "resolution" in offered["fields"]
    client.post("/issue/PROJ-1/transitions", body)
    moved = fake.site.issue("PROJ-1")
    assert moved is not None
    assert moved.status.name == "Done"


def test_transitions_are_kept_by_issue_type_and_status(fake: FakeJira, tracker: JiraTracker):
    tracker.create_issue("Task", state=S.BACKLOG)
    tracker.create_issue("Step", parent=1, state=S.BACKLOG)  # a sub-task
    fake.remove_transition("PROJ", "Research Needed", source="Backlog", issue_type="Task")
    tracker.set_state(2, S.RESEARCH_NEEDED, command="ralph_triage")
    with pytest.raises(NotAvailable, match="no transition from 'Backlog'"):
        tracker.set_state(1, S.RESEARCH_NEEDED, command="ralph_triage")
    # The task's transitions were read, not the sub-task's sent and refused.
    assert not [r for r in fake.requests if r.status == 400]


def test_a_refused_move_inside_a_snapshot_reads_the_status_again(
    fake: FakeJira, tracker: JiraTracker, clock: FakeClock
):
    for title in ("One", "Two"):
        tracker.create_issue(title, state=S.BACKLOG)
    tracker.set_state(2, S.RESEARCH_NEEDED, command="ralph_triage")  # Backlog's transitions
    fake.remove_transition("PROJ", "Research Needed", source="In Progress")
    someone = JiraClient(fake, clock=clock, sleep=clock.advance)
    moving = fake.site.projects["PROJ"].status("In Progress")
    assert moving is not None
    with tracker.snapshot():
        assert tracker.get_issue(1).workflow_state is S.BACKLOG
        someone.post("/issue/PROJ-1/transitions", {"transition": {"id": moving.id}})
        with pytest.raises(StateConflict):
            tracker.set_state(1, S.RESEARCH_NEEDED, command="ralph_triage")
    # What In Progress offers was not kept as Backlog's: Backlog still moves.
    tracker.create_issue("Three", state=S.BACKLOG)
    tracker.set_state(3, S.RESEARCH_NEEDED, command="ralph_triage")


def test_a_lost_create_is_looked_for_by_a_relative_date_and_again_after_a_wait(
    clock: FakeClock,
):
    fake = FakeJira(clock=clock, search_lag=2.0)
    fake.add_account("ralph@example.com", "token", "ralph")
    fake.add_project("PROJ")
    tracker = JiraTracker(JiraClient(fake, clock=clock, sleep=clock.advance), "PROJ", clock=clock)
    fake.faults.append(ScriptedFault.dropped_after_write("POST /rest/api/3/issue"))
    made = tracker.create_issue("One")
    assert made.number == 1
    assert len(fake.site.issues) == 1
    # Looked for at once, then again after a wait: the index had not caught up.
    searches = [r.at for r in fake.requests if r.path.endswith("/search/jql")]
    assert searches[1] - searches[0] == pytest.approx(5.0)


def test_a_just_made_child_is_among_its_parents_children_at_once(clock: FakeClock):
    fake = FakeJira(clock=clock, search_lag=60.0)
    fake.add_account("ralph@example.com", "token", "ralph")
    fake.add_project("PROJ")
    tracker = JiraTracker(JiraClient(fake, clock=clock, sleep=clock.advance), "PROJ", clock=clock)
    tracker.create_issue("Story")
    tracker.create_issue("Step", parent=1)
    assert tracker.get_issue(1).sub_issues == (2,)
    assert [i.number for i in tracker.list_issues()] == [1, 2]


def test_doctor_does_not_wait_out_a_long_rate_limit(fake: FakeJira, tracker: JiraTracker):
    fake.faults.append(ScriptedFault.rate_limited("GET /rest/api/3/project", retry_after=600))
    [check] = tracker.check()
    assert not check.ok
    assert "rate limiting" in check.detail
    assert "600 s" in check.detail


def test_a_lost_create_is_found_whatever_the_accounts_time_zone(clock: FakeClock):
    fake = FakeJira(clock=clock)
    # JQL reads an absolute date in the account's zone: 8 hours behind UTC here.
    fake.add_account("ralph@example.com", "token", "ralph", time_zone="America/Los_Angeles")
    fake.add_project("PROJ")
    tracker = JiraTracker(JiraClient(fake, clock=clock, sleep=clock.advance), "PROJ", clock=clock)
    fake.faults.append(ScriptedFault.dropped_after_write("POST /rest/api/3/issue"))
    assert tracker.create_issue("One").number == 1
    assert len(fake.site.issues) == 1
