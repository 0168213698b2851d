"""A GitHub Enterprise Server without issue dependencies or sub-issues: Ralph finds out
from the schema, reads and writes issues without them, and refuses in one line what
needs them. The fake serves GitHub's schema less those fields, so any document still
naming them fails validation here as on such a server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ralph.errors import InvalidInput
from ralph.github import (
    NO_DEPENDENCIES,
    NO_SUB_ISSUES,
    GitHubClient,
    IssueFeatures,
    Pacer,
    PacingPolicy,
    Tokens,
)
from ralph.github.fake import FakeGitHub
from ralph.tracker import GitHubTracker, check_board, set_up_board
from ralph.workflow import WorkflowState

S = WorkflowState


def server(*, dependencies: bool, sub_issues: bool) -> FakeGitHub:
    fake = FakeGitHub(dependencies=dependencies, sub_issues=sub_issues)
    fake.add_token("token", "acme")
    fake.add_repository("acme/shop")
    return fake


def client_of(fake: FakeGitHub) -> GitHubClient:
    pacer = Pacer(PacingPolicy(mutation_interval=0, content_per_minute=10_000))
    return GitHubClient(fake, Tokens("token"), pacer=pacer)


@pytest.fixture
def bare() -> Iterator[FakeGitHub]:
    """A server with neither dependencies nor sub-issues (before 3.16)."""
    fake = server(dependencies=False, sub_issues=False)
    yield fake
    assert fake.internal_errors == []


def test_init_finds_what_the_server_lacks(bare):
    setup = set_up_board(client_of(bare), "acme/shop")
    assert setup.features == IssueFeatures(dependencies=False, sub_issues=False)
    assert setup.features.notes() == (NO_DEPENDENCIES, NO_SUB_ISSUES)


def test_the_tracker_asks_once_and_works_issues_without_the_missing_fields(bare):
    client = client_of(bare)
    board = set_up_board(client, "acme/shop").board
    tracker = GitHubTracker(client, owner="acme", repo="shop", project=board.number, features=None)
    tracker.create_issue("Add login", state=S.BACKLOG)
    tracker.create_issue("Add logout")
    tracker.set_state(1, "Research Needed", command="ralph_triage")
    assert [i.workflow_state for i in tracker.list_issues()] == [S.RESEARCH_NEEDED, None]
    issue = tracker.get_issue(1)
    assert (issue.parent, issue.sub_issues, issue.blocked_by) == (None, (), ())
    names = [r.name for r in bare.requests]
    # Init's question and the tracker's ride on their reads of the repository.
    assert names.count("IssueFeatures") == 0
    assert names.count("Repository") == names.count("RepositoryAndBoard") == 1


def test_what_needs_a_missing_feature_is_refused_in_one_line(bare):
    client = client_of(bare)
    board = set_up_board(client, "acme/shop").board
    tracker = GitHubTracker(client, owner="acme", repo="shop", project=board.number, features=None)
    tracker.create_issue("Epic")
    tracker.create_issue("Part")
    with pytest.raises(InvalidInput, match="no sub-issues") as refused:
        tracker.create_issue("Child", parent=1)
    assert str(refused.value) == NO_SUB_ISSUES
    with pytest.raises(InvalidInput, match="no sub-issues"):
        tracker.add_sub_issue(1, 2)
    with pytest.raises(InvalidInput, match="no issue dependencies"):
        tracker.add_dependency(2, 1)
    assert [i.title for i in bare.repository("acme/shop").issue_list] == ["Epic", "Part"]


def test_a_server_with_sub_issues_but_no_dependencies_keeps_sub_issues():
    fake = server(dependencies=False, sub_issues=True)
    client = client_of(fake)
    board = set_up_board(client, "acme/shop").board
    tracker = GitHubTracker(client, owner="acme", repo="shop", project=board.number, features=None)
    tracker.create_issue("Epic")
    tracker.create_issue("Child", parent=1)
    assert tracker.get_issue(1).sub_issues == (2,)
    assert fake.internal_errors == []


def test_doctor_says_once_what_ralph_does_instead(bare):
    client = client_of(bare)
    set_up_board(client, "acme/shop")
    checks = check_board(client, "acme/shop", project=1)
    relations = [c for c in checks if c.name == "issue relations"]
    assert [(c.ok, c.warning, c.detail) for c in relations] == [
        (True, True, NO_DEPENDENCIES),
        (True, True, NO_SUB_ISSUES),
    ]
    assert all(c.ok for c in checks)


def test_doctor_on_github_com_finds_both():
    fake = server(dependencies=True, sub_issues=True)
    client = client_of(fake)
    set_up_board(client, "acme/shop")
    checks = {c.name: c for c in check_board(client, "acme/shop", project=1)}
    assert checks["issue relations"].detail == "sub-issues and dependencies"
    assert not checks["issue relations"].warning


def test_a_document_github_com_answered_still_fails_validation_on_a_server_without_the_field():
    """The fake validates each document once per schema, not once for every server."""
    document = (
        'query SubIssues { repository(owner: "acme", name: "shop") '
        "{ issue(number: 1) { subIssues(first: 5) { totalCount } } } }"
    )
    everything = server(dependencies=True, sub_issues=True)
    everything.add_issue("acme/shop", "Epic")
    answered = everything.post({"query": document}, "token")
    assert answered.body == {"data": {"repository": {"issue": {"subIssues": {"totalCount": 0}}}}}
    refused = server(dependencies=False, sub_issues=False).post({"query": document}, "token")
    assert refused.body["data"] is None
    assert ["subIssues" in error["message"] for error in refused.body["errors"]] == [True]
