"""What the Jira tracker does beyond the contract suite: moves by the workflow's
transitions (a missing one said in one line), lost writes looked for before anything
is sent again, estimates on the field the person names, statuses mapped by a table,
the project checked for ``ralph doctor``, and what Jira lacks refused in one line."""

from __future__ import annotations

import pytest

from ralph.errors import NotAvailable
from ralph.jira import JiraAmbiguous
from ralph.jira.fake import FakeJira, ScriptedFault
from ralph.tracker import IssueQuery, IssueStatus
from ralph.tracker.jira import JiraTracker
from ralph.workflow import Estimate, Priority, WorkflowState, parse_transition_comments

S = WorkflowState


def test_a_move_the_workflow_lacks_names_both_statuses_and_the_fix_and_writes_nothing(
    fake: FakeJira, tracker: JiraTracker
):
    tracker.create_issue("One", state=S.BACKLOG)
    fake.remove_transition("PROJ", "Research Needed", source="Backlog")
    with pytest.raises(NotAvailable) as refused:
        tracker.set_state(1, S.RESEARCH_NEEDED, command="ralph_triage")
    message = str(refused.value)
    assert "from 'Backlog' to 'Research Needed'" in message
    assert "[jira.statuses]" in message
    assert "\n" not in message
    issue = tracker.get_issue(1)
    assert issue.workflow_state is S.BACKLOG
    assert issue.comments == ()


def test_a_move_and_its_audit_comment_are_one_request(fake: FakeJira, tracker: JiraTracker):
    tracker.create_issue("One", state=S.BACKLOG)
    fake.requests.clear()
    tracker.set_state(1, S.RESEARCH_NEEDED, command="ralph_triage")
    writes = [r for r in fake.requests if r.method != "GET" and not r.path.endswith("/search/jql")]
    assert [(r.method, r.path) for r in writes] == [
        ("POST", "/rest/api/3/issue/PROJ-1/transitions")
    ]
    [record] = parse_transition_comments(tracker.get_issue(1).comments[-1].body)
    assert (record.from_state, record.to_state) == ("Backlog", "Research Needed")


def test_a_create_whose_answer_was_lost_is_found_by_its_marker_not_made_twice(
    fake: FakeJira, tracker: JiraTracker
):
    fake.faults.append(ScriptedFault.dropped_after_write("POST /rest/api/3/issue"))
    made = tracker.create_issue("Only once", priority=Priority.P1)
    assert made.number == 1
    assert made.title == "Only once"
    assert len(fake.site.issues) == 1


def test_a_create_that_did_not_happen_is_not_guessed(fake: FakeJira, tracker: JiraTracker):
    fake.faults.append(ScriptedFault.dropped("POST /rest/api/3/issue"))
    with pytest.raises(JiraAmbiguous):
        tracker.create_issue("Lost")
    assert fake.site.issues == {}


def test_a_comment_whose_answer_was_lost_is_found_by_its_text(fake: FakeJira, tracker: JiraTracker):
    tracker.create_issue("One")
    fake.faults.append(ScriptedFault.dropped_after_write("POST /rest/api/3/issue/PROJ-1/comment"))
    made = tracker.add_comment(1, "Said once")
    assert made.body == "Said once"
    assert [c.body for c in tracker.get_issue(1).comments] == ["Said once"]


def test_comments_keep_markdown_and_headers_exactly(tracker: JiraTracker):
    tracker.create_issue("One")
    text = "<!-- ralph:plan v1 -->\n## Plan\n\n1. Read `src/`\n2. Write\n\n\n    indented\n"
    tracker.add_comment(1, text)
    assert tracker.get_issue(1).comments[0].body == text


def test_estimates_go_on_a_t_shirt_select_when_the_person_names_one(fake: FakeJira, client, clock):
    tracker = JiraTracker(client, "PROJ", estimate_field="T-shirt size", clock=clock)
    tracker.create_issue("Sized", estimate=Estimate.L)
    [issue] = fake.site.issues.values()
    assert issue.custom == {"customfield_10020": "L"}
    assert tracker.get_issue(1).estimate is Estimate.L


def test_story_points_are_the_default_estimate_field(fake: FakeJira, tracker: JiraTracker):
    tracker.create_issue("Pointed", estimate=Estimate.XL)
    [issue] = fake.site.issues.values()
    assert issue.custom == {"customfield_10016": 8}


def test_states_go_to_the_statuses_a_table_names(fake: FakeJira, client, clock):
    fake.add_status("PROJ", "Code Review", "indeterminate")
    tracker = JiraTracker(client, "PROJ", statuses={"In Review": "Code Review"}, clock=clock)
    tracker.create_issue("One", state=S.IN_PROGRESS)
    tracker.set_state(1, S.IN_REVIEW, command="ralph_impl")
    assert [i.status.name for i in fake.site.issues.values()] == ["Code Review"]
    assert tracker.get_issue(1).workflow_state is S.IN_REVIEW


def test_listing_reads_the_project_a_page_of_a_hundred_at_a_time(
    fake: FakeJira, tracker: JiraTracker
):
    for n in range(1, 131):
        tracker.client.post(
            "/issue",
            {
                "fields": {
                    "project": {"key": "PROJ"},
                    "issuetype": {"name": "Task"},
                    "summary": f"Issue {n}",
                }
            },
        )
    fake.requests.clear()
    issues = tracker.list_issues(IssueQuery(status=None))
    assert [i.number for i in issues][:3] == [1, 2, 3]
    assert len(issues) == 130
    searches = [r for r in fake.requests if r.path.endswith("/search/jql")]
    assert len(searches) == 2


def test_closing_moves_to_done_or_canceled_with_the_resolution(tracker: JiraTracker, fake):
    from ralph.tracker import CloseReason

    tracker.create_issue("Done one")
    tracker.create_issue("Dropped one")
    fake.add_screen("PROJ", "Canceled", ("resolution",))
    assert tracker.close_issue(1).close_reason is CloseReason.COMPLETED
    dropped = tracker.close_issue(2, CloseReason.NOT_PLANNED)
    assert (dropped.status, dropped.workflow_state) == (IssueStatus.CLOSED, S.CANCELED)
    assert [i.resolution for i in fake.site.issues.values()] == ["Done", "Won't Do"]
    reopened = tracker.reopen_issue(2)
    assert (reopened.is_open, reopened.workflow_state) == (True, S.BACKLOG)


def test_pull_requests_close_issues_by_key(tracker: JiraTracker):
    assert tracker.reference(12) == "PROJ-12"
    assert tracker.closing_words(12) == "Fixes PROJ-12"
    body = "Fixes PROJ-12\ncloses: proj-3, resolves PROJ-12 and mentions PROJ-4; fixes OPS-5"
    assert tracker.closed_by(body) == (12, 3)


def test_what_jira_lacks_is_refused_in_one_line(tracker: JiraTracker):
    tracker.create_issue("One")
    for attempt in (
        lambda: tracker.archive_issue(1),
        lambda: tracker.list_status_updates(),
        lambda: tracker.project_board().info(),
    ):
        with pytest.raises(NotAvailable) as refused:
            attempt()
        assert "\n" not in str(refused.value)


def test_doctor_names_missing_statuses_and_a_missing_estimate_field(client, clock, fake):
    fake.add_project("BARE", "Bare")  # Jira's To Do, In Progress, Done only
    checks = JiraTracker(client, "BARE", estimate_field="Effort", clock=clock).check()
    failing = {c.name: c.detail for c in checks if not c.ok}
    assert "Research Needed" in failing["jira statuses"]
    assert "Done" not in failing["jira statuses"].split("for ", 1)[1].split(";")[0].split(", ")
    assert "'Effort'" in failing["jira estimates"]
    good = JiraTracker(client, "PROJ", clock=clock).check()
    assert all(c.ok for c in good), good


def test_doctor_on_a_project_that_is_not_there_says_so(client, clock):
    [check] = JiraTracker(client, "NOPE", clock=clock).check()
    assert not check.ok
    assert "no Jira project NOPE" in check.detail


def test_a_move_whose_answer_was_lost_is_read_back_not_sent_again(
    fake: FakeJira, tracker: JiraTracker
):
    tracker.create_issue("One", state=S.BACKLOG)
    lost = ScriptedFault.dropped_after_write("POST /rest/api/3/issue/PROJ-1/transitions")
    fake.faults.append(lost)
    tracker.set_state(1, S.RESEARCH_NEEDED, command="ralph_triage")
    issue = tracker.get_issue(1)
    assert issue.workflow_state is S.RESEARCH_NEEDED
    assert len(issue.comments) == 1  # the audit went with the move, once
    moves = [r for r in fake.requests if r.path.endswith("/transitions") and r.method == "POST"]
    assert len(moves) == 2  # the create's move to Backlog, and this one


def test_a_move_that_did_not_happen_is_an_error_and_the_state_stays(
    fake: FakeJira, tracker: JiraTracker
):
    tracker.create_issue("One", state=S.BACKLOG)
    fake.faults.append(ScriptedFault.dropped("POST /rest/api/3/issue/PROJ-1/transitions"))
    with pytest.raises(JiraAmbiguous):
        tracker.set_state(1, S.RESEARCH_NEEDED, command="ralph_triage")
    assert tracker.get_issue(1).workflow_state is S.BACKLOG


def test_a_rate_limited_read_waits_out_retry_after_and_goes_on(
    fake: FakeJira, tracker: JiraTracker, clock
):
    tracker.create_issue("One")
    fake.faults.append(ScriptedFault.rate_limited("POST /rest/api/3/search/jql", retry_after=30))
    started = clock.now
    assert [i.number for i in tracker.list_issues()] == [1]
    assert clock.now - started == pytest.approx(30.0)


def test_blocking_is_a_blocks_link_removed_by_its_id(fake: FakeJira, tracker: JiraTracker):
    tracker.create_issue("Blocker")
    tracker.create_issue("Blocked")
    tracker.add_dependency(2, 1)
    [link] = fake.site.links.values()
    ids = {issue.key: issue.id for issue in fake.site.issues.values()}
    assert (link.outward, link.inward) == (ids["PROJ-1"], ids["PROJ-2"])
    assert tracker.get_issue(1).blocking == (2,)
    tracker.remove_dependency(2, 1)
    assert fake.site.links == {}
    assert tracker.get_issue(2).blocked_by == ()


def test_the_workflows_transitions_are_read_once_a_status_until_jira_refuses_one(
    fake: FakeJira, tracker: JiraTracker
):
    for title in ("One", "Two", "Three"):
        tracker.create_issue(title, state=S.BACKLOG)
    fake.requests.clear()
    tracker.set_state(1, S.RESEARCH_NEEDED, command="ralph_triage")
    tracker.set_state(2, S.RESEARCH_NEEDED, command="ralph_triage")
    lookups = [r for r in fake.requests if r.method == "GET" and r.path.endswith("/transitions")]
    assert len(lookups) == 1
    fake.remove_transition("PROJ", "Research Needed", source="Backlog")
    with pytest.raises(NotAvailable, match="no transition from 'Backlog'"):
        tracker.set_state(3, S.RESEARCH_NEEDED, command="ralph_triage")
    assert tracker.get_issue(3).workflow_state is S.BACKLOG


def test_a_sub_issue_is_made_one_level_below_its_parent(fake: FakeJira, tracker: JiraTracker):
    tracker.create_issue("Story")
    tracker.create_issue("Step", parent=1)
    types = {i.key: i.issue_type.name for i in fake.site.issues.values()}
    assert types == {"PROJ-1": "Task", "PROJ-2": "Subtask"}
    assert tracker.get_issue(1).sub_issues == (2,)
    with pytest.raises(NotAvailable, match="PROJ-2 is a Jira sub-task, which holds no issues"):
        tracker.create_issue("Too deep", parent=2)
    assert len(fake.site.issues) == 2


def test_under_an_epic_a_task_and_under_it_a_sub_task(fake: FakeJira, tracker: JiraTracker):
    tracker.client.post(
        "/issue",
        {"fields": {"project": {"key": "PROJ"}, "issuetype": {"name": "Epic"}, "summary": "E"}},
    )
    tracker.create_issue("Task", parent=1)
    tracker.create_issue("Step", parent=2)
    assert [i.issue_type.name for i in fake.site.issues.values()] == ["Epic", "Task", "Subtask"]
    tracker.create_issue("Loose")
    tracker.add_sub_issue(1, 4)  # a Task under an epic: Jira's parent field
    assert tracker.get_issue(4).parent == 1


def test_a_parent_jiras_hierarchy_does_not_allow_is_refused_in_one_line(
    fake: FakeJira, tracker: JiraTracker
):
    tracker.create_issue("One")
    tracker.create_issue("Two")
    with pytest.raises(NotAvailable) as refused:
        tracker.add_sub_issue(1, 2)
    assert "only under an epic, which PROJ-1 is not" in str(refused.value)
    assert "ralph issue new --parent 1" in str(refused.value)
    assert tracker.get_issue(2).parent is None


def test_a_write_drops_the_issue_from_every_threads_snapshot(tracker: JiraTracker):
    import threading

    tracker.create_issue("One", state=S.BACKLOG)
    read, written, seen = threading.Event(), threading.Event(), []

    def other_step() -> None:
        with tracker.snapshot():
            tracker.get_issue(1)
            read.set()
            assert written.wait(10)
            seen.append(tracker.get_issue(1).workflow_state)

    other = threading.Thread(target=other_step)
    other.start()
    assert read.wait(10)
    with tracker.snapshot():
        tracker.get_issue(1)
        tracker.set_state(1, S.RESEARCH_NEEDED, command="ralph_triage")
        assert tracker.get_issue(1).workflow_state is S.RESEARCH_NEEDED
    written.set()
    other.join(10)
    assert seen == [S.RESEARCH_NEEDED]
