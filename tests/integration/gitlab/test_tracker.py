"""What the GitLab tracker does beyond the contract suite: its labels on GitLab, closing
words, writes safe against a lost answer, and what GitLab lacks said in one line."""

from __future__ import annotations

import pytest

from ralph.errors import InvalidInput, NotAvailable
from ralph.gitlab import GitLabClient
from ralph.gitlab.fake import FakeGitLab, ScriptedFault
from ralph.tracker import CloseReason
from ralph.tracker.gitlab import GitLabTracker, set_up_project
from ralph.workflow import Estimate, Priority, WorkflowState

from .conftest import PID, TOKEN


@pytest.fixture
def tracker(client, clock) -> GitLabTracker:
    set_up_project(client, "acme/app")
    return GitLabTracker(client, "acme/app", clock=clock)


def labels_on_gitlab(fake: FakeGitLab, number: int) -> list[str]:
    project = fake.state.project("acme/app")
    assert project is not None
    return project.issues[number].labels


def test_fields_are_labels_a_person_sees_on_gitlab(tracker, fake):
    tracker.create_issue(
        "t", state=WorkflowState.BACKLOG, estimate=Estimate.M, priority=Priority.P1, labels=["ui"]
    )
    assert labels_on_gitlab(fake, 1) == [
        "ui",
        "ralph::Backlog",
        "ralph-estimate::M",
        "ralph-priority::P1",
    ]
    assert tracker.get_issue(1).labels == ("ui",)


def test_a_move_names_the_old_state_label_so_free_gitlab_keeps_one(clock):
    fake = FakeGitLab(clock=clock, premium=False)
    fake.add_token(TOKEN, "ralph")
    fake.add_project("acme/app")
    tracker = GitLabTracker(GitLabClient(fake, TOKEN, clock=clock, sleep=clock.advance), "acme/app")
    tracker.create_issue("t", state=WorkflowState.BACKLOG)
    tracker.set_state(1, WorkflowState.RESEARCH_NEEDED, command="ralph_triage")
    assert [n for n in labels_on_gitlab(fake, 1) if n.startswith("ralph::")] == [
        "ralph::Research Needed"
    ]


def test_a_move_inside_a_step_leaves_one_state_label_after_a_persons_label(clock):
    fake = FakeGitLab(clock=clock, premium=False)
    fake.add_token(TOKEN, "ralph")
    fake.add_project("acme/app")
    tracker = GitLabTracker(GitLabClient(fake, TOKEN, clock=clock, sleep=clock.advance), "acme/app")
    tracker.create_issue("t", state=WorkflowState.BACKLOG)
    with tracker.snapshot():
        tracker.get_issue(1)  # kept for the step
        labels_on_gitlab(fake, 1).append("ralph::Plan in Progress")  # a person, on Free
        tracker.set_state(1, WorkflowState.RESEARCH_NEEDED, command="ralph_triage")
    assert [n for n in labels_on_gitlab(fake, 1) if n.startswith("ralph::")] == [
        "ralph::Research Needed"
    ]


def test_blocking_on_free_gitlab_is_refused_in_one_line_and_leaves_no_link(clock):
    fake = FakeGitLab(clock=clock, premium=False)
    fake.add_token(TOKEN, "ralph")
    fake.add_project("acme/app")
    tracker = GitLabTracker(GitLabClient(fake, TOKEN, clock=clock, sleep=clock.advance), "acme/app")
    tracker.create_issue("a")
    tracker.create_issue("b")
    with pytest.raises(NotAvailable, match="Premium") as caught:
        tracker.add_dependency(2, 1)
    assert "\n" not in str(caught.value)
    assert fake.state.links == []


def test_closing_words_are_gitlabs_and_read_back(tracker):
    assert tracker.closing_words(12) == "Closes #12"
    body = "Fixes #3, #4 and acme/app#5; closes other/proj#6. Resolves: #7 implements #8"
    assert tracker.closed_by(body) == (3, 4, 5, 7, 8)
    assert tracker.closed_by("Closes issues #1, #2, and #9. See #10") == (1, 2, 9)
    assert tracker.closed_by(tracker.closing_words(12)) == (12,)
    assert tracker.closed_by("Closes https://gitlab.com/acme/app/-/issues/11 and #2") == (11, 2)
    assert tracker.closed_by("Closes https://gitlab.com/other/app/-/issues/11") == ()
    assert tracker.reference(12) == "#12"
    assert tracker.full_reference(12) == "acme/app#12"


def test_an_issue_whose_answer_was_lost_is_found_not_made_twice(tracker, fake):
    fake.script(ScriptedFault.dropped_after_write(f"POST /api/v4/projects/{PID}/issues"))
    made = tracker.create_issue("once", body="as typed")
    assert made.number == 1
    assert len(fake.state.project("acme/app").issues) == 1
    assert tracker.get_issue(1).body == "as typed"


def test_an_issue_lost_before_it_ran_is_sent_again(tracker, fake):
    fake.script(ScriptedFault.dropped(f"POST /api/v4/projects/{PID}/issues"))
    tracker.create_issue("again")
    assert [i.title for i in fake.state.project("acme/app").issues.values()] == ["again"]


def test_a_note_whose_answer_was_lost_is_posted_once_with_its_text_as_typed(tracker, fake):
    tracker.create_issue("t")
    fake.script(ScriptedFault.dropped_after_write(f"POST /api/v4/projects/{PID}/issues/1/notes"))
    text = "line one  \n\n```\ncode\n```\n"
    tracker.add_comment(1, text)
    assert [c.body for c in tracker.get_issue(1).comments] == [text]


def test_close_reasons_survive_on_gitlab_and_reopen_clears_them(tracker, fake):
    tracker.create_issue("t")
    tracker.close_issue(1, CloseReason.DUPLICATE)
    assert "ralph-closed::duplicate" in labels_on_gitlab(fake, 1)
    assert tracker.get_issue(1).close_reason is CloseReason.DUPLICATE
    tracker.reopen_issue(1)
    assert not [n for n in labels_on_gitlab(fake, 1) if n.startswith("ralph-closed")]


def test_archived_issues_leave_the_lists_and_come_back(tracker):
    tracker.create_issue("t")
    tracker.archive_issue(1)
    assert tracker.list_issues() == []
    assert tracker.get_issue(1).archived
    tracker.unarchive_issue(1)
    assert [i.number for i in tracker.list_issues()] == [1]


def test_a_list_reads_blockers_only_of_the_issues_that_block(tracker, fake):
    for title in "abcd":
        tracker.create_issue(title, state=WorkflowState.RESEARCH_NEEDED)
    tracker.add_dependency(2, 1)
    fake.requests.clear()
    listed = {i.number: i for i in tracker.list_issues()}
    assert listed[2].blocked_by == (1,)
    assert listed[1].blocking == (2,)
    assert len(fake.requests) == 2  # the page, and issue 1's links


def test_status_updates_are_refused_saying_what_to_do(tracker):
    with pytest.raises(NotAvailable, match="ralph report --dry-run"):
        tracker.list_status_updates()


def test_set_up_is_idempotent_and_check_reports_missing_labels(client, fake):
    first = set_up_project(client, "acme/app")
    assert len(first.created) == 11 + 5 + 4
    assert set_up_project(client, "acme/app").created == ()
    tracker = GitLabTracker(client, "acme/app")
    assert all(check.ok for check in tracker.check())
    assert tracker.check()[0].detail == "authenticated as ralph"
    fake.add_project("acme/bare")
    bare = GitLabTracker(client, "acme/bare").check()
    assert not bare[-1].ok
    assert "ralph init --gitlab acme/bare" in bare[-1].detail


def test_check_names_a_missing_project_and_the_fix(client):
    checks = GitLabTracker(client, "acme/gone").check()
    assert not checks[0].ok
    assert "acme/gone" in checks[0].detail
    assert "member" in checks[0].detail


def test_an_issue_names_the_merge_requests_that_close_it(tracker, fake):
    tracker.create_issue("t")

    def closing(call):
        def mr(iid, state, path="acme/app"):
            return {"iid": iid, "state": state, "references": {"full": f"{path}!{iid}"}}

        return [mr(4, "merged"), mr(2, "opened"), mr(3, "closed"), mr(9, "opened", "else/where")]

    fake.routes.add("GET", "/api/v4/projects/{id}/issues/{issue_iid}/closed_by", closing)
    assert tracker.get_issue(1).pull_requests == (2, 4)


def test_a_title_over_gitlabs_255_characters_is_refused_naming_the_fix(tracker, fake):
    with pytest.raises(InvalidInput, match="at most 255 on GitLab"):
        tracker.create_issue("x" * 256)
    assert fake.state.project("acme/app").issues == {}


def test_beside_another_code_host_closing_words_name_the_issue_by_its_url(client):
    tracker = GitLabTracker(
        client, "acme/app", web_url="https://git.example.com/", own_code_host=False
    )
    words = tracker.closing_words(12)
    assert words == "Closes https://git.example.com/acme/app/-/issues/12"
    assert tracker.closed_by(f"Some text.\n\n{words}") == (12,)
    assert tracker.closed_by("Closes #12") == ()  # GitHub's own issue #12 there
    assert tracker.closed_by("Fixes acme/app#7") == (7,)
