"""A board's built-in workflows, as GitHub runs them: "Item closed" sets Status to Done,
and "Auto-close issue" closes an issue whose Status becomes Done, whoever set it. Ralph
must not close an escalated issue through them, and doctor says what is on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ralph.github import GitHubClient, Pacer, PacingPolicy, Tokens
from ralph.github.fake import FakeGitHub
from ralph.tracker import GitHubTracker, IssueStatus, check_board, set_up_board
from ralph.workflow import WorkflowState

S = WorkflowState


def client_of(github: FakeGitHub) -> GitHubClient:
    pacer = Pacer(PacingPolicy(mutation_interval=0, content_per_minute=10_000))
    return GitHubClient(github, Tokens("token"), pacer=pacer)


@pytest.fixture
def github() -> FakeGitHub:
    """An organisation's board whose owner turned on "close the issue when Status is Done"."""
    fake = FakeGitHub()
    fake.add_token("token", "ralph")
    fake.add_repository("bigco/shop", organization=True)
    set_up_board(client_of(fake), "bigco/shop")
    fake.world.accounts["bigco"].projects[0].workflow("Auto-close issue").enabled = True
    return fake


@pytest.fixture
def tracker(github) -> Iterator[GitHubTracker]:
    yield GitHubTracker(client_of(github), owner="bigco", repo="shop", project=1)
    assert github.internal_errors == []


def status_of(github: FakeGitHub, number: int) -> str | None:
    board = github.world.accounts["bigco"].projects[0]
    item = next(i for i in board.item_list if i.content.number == number)
    status = next(f for f in board.field_list if f.name == "Status")
    option = item.values.get(status.id)
    return next((o["name"] for o in status.option_list if o["id"] == option), None)


def test_an_escalated_issue_stays_open_on_a_board_that_closes_issues_on_done(tracker, github):
    tracker.create_issue("Needs a person", state=S.BACKLOG)
    tracker.set_state(1, "Research Needed", command="ralph_triage")
    tracker.set_state(1, "Human Needed", command="human")
    issue = tracker.get_issue(1)
    assert (issue.workflow_state, issue.status) == (S.HUMAN_NEEDED, IssueStatus.OPEN)
    assert github.repository("bigco/shop").issue_list[0].state == "OPEN"


def test_the_fake_closes_an_issue_whose_status_becomes_done_as_the_workflow_does(tracker, github):
    """The automation the test above guards against: Done on Status closes the issue."""
    tracker.create_issue("Finished", state=S.BACKLOG)
    tracker.set_state(1, "Done", command="human")
    assert tracker.get_issue(1).status is IssueStatus.CLOSED
    workflow = github.world.accounts["bigco"].projects[0].workflow("Auto-close issue")
    workflow.status = "In Progress"  # a person made it watch for another Status
    tracker.create_issue("Escalated", state=S.BACKLOG)
    tracker.set_state(2, "Human Needed", command="human")
    assert tracker.get_issue(2).status is IssueStatus.CLOSED  # what doctor warns of


def test_closing_an_issue_sets_its_status_to_done_as_item_closed_does(tracker, github):
    tracker.create_issue("A", state=S.BACKLOG)
    assert status_of(github, 1) == "Todo"
    tracker.close_issue(1)
    assert status_of(github, 1) == "Done"
    github.world.accounts["bigco"].projects[0].workflow("Item closed").enabled = False
    tracker.create_issue("B", state=S.BACKLOG)
    tracker.close_issue(2)
    assert status_of(github, 2) == "Todo"


def test_doctor_warns_of_auto_close_and_names_what_ralph_sets(github):
    checks = {c.name: c for c in check_board(client_of(github), "bigco/shop", project=1)}
    check = checks["board automations"]
    assert (check.ok, check.warning) == (True, True)
    assert '"Auto-close issue" is on for project #1' in check.detail
    assert "In Progress for Human Needed" in check.detail
    assert "Settings → Workflows" in check.detail


def test_doctor_on_a_new_board_lists_its_workflows_without_a_warning(github):
    github.world.accounts["bigco"].projects[0].workflow("Auto-close issue").enabled = False
    checks = {c.name: c for c in check_board(client_of(github), "bigco/shop", project=1)}
    check = checks["board automations"]
    assert (check.ok, check.warning) == (True, False)
    assert check.detail == (
        "none closes an issue on its Status (on: Item closed, Pull request merged)"
    )
