"""Split tokens: the repository's token (``repo`` only, no ``read:project``) for issues
and pull requests, the board's (``project``) for everything on the board. GitHub refuses
project items to a token without ``read:project``, and so does the fake."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ralph.errors import GitHubAuthError
from ralph.github import GitHubClient, Pacer, PacingPolicy, Tokens
from ralph.github import queries as q
from ralph.github.fake import FakeGitHub
from ralph.tracker import GitHubTracker, set_up_board
from ralph.workflow import WorkflowState

S = WorkflowState


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    fake.add_token("repo-token", "ralph", scopes="repo")
    fake.add_token("board-token", "ralph", scopes="project")
    fake.add_repository("acme/shop")
    yield fake
    assert fake.internal_errors == []


def client_of(github: FakeGitHub, tokens: Tokens) -> GitHubClient:
    pacer = Pacer(PacingPolicy(mutation_interval=0, content_per_minute=10_000))
    return GitHubClient(github, tokens, pacer=pacer)


def tracker_of(github: FakeGitHub, tokens: Tokens) -> GitHubTracker:
    client = client_of(github, tokens)
    board = set_up_board(client, "acme/shop").board
    return GitHubTracker(client, owner="acme", repo="shop", project=board.number)


def test_github_refuses_project_items_to_a_token_without_read_project(github):
    tracker_of(github, Tokens("repo-token", "board-token")).create_issue("A", state=S.BACKLOG)
    client = client_of(github, Tokens("repo-token"))
    refused = r"field requires one of the following scopes: \['read:project'\]"
    with pytest.raises(GitHubAuthError, match=refused):
        client.query(q.ISSUES, {"owner": "acme", "name": "shop", "first": 10})


def test_a_tracker_with_split_tokens_creates_moves_and_lists_issues_on_the_board(github):
    tracker = tracker_of(github, Tokens("repo-token", "board-token"))

    tracker.create_issue("Add login", state=S.BACKLOG)
    tracker.create_issue("Add logout", state=S.BACKLOG)
    tracker.set_state(1, "Research Needed", command="ralph_triage")

    listed = {issue.number: issue.workflow_state for issue in tracker.list_issues()}
    assert listed == {1: S.RESEARCH_NEEDED, 2: S.BACKLOG}
    assert tracker.get_issue(1).workflow_state is S.RESEARCH_NEEDED
    project = github.world.accounts["acme"].projects[0]
    on_board = sorted(item.content.number for item in project.item_list)
    assert on_board == [1, 2]  # no issue left orphaned off the board


def test_only_the_board_token_reads_board_data_and_one_token_reads_both_at_once(github):
    split_tracker = tracker_of(github, Tokens("repo-token", "board-token"))
    split_tracker.create_issue("A")
    split_tracker.get_issue(1)
    split = [r.name for r in github.requests if r.name in ("Issue", "IssueItems")]
    assert split[-2:] == ["Issue", "IssueItems"]

    github.add_token("both", "ralph")
    client = client_of(github, Tokens("both"))
    before = len(github.requests)
    GitHubTracker(client, owner="acme", repo="shop", project=1).get_issue(1)
    names = [r.name for r in github.requests[before:]]
    assert "IssueItems" not in names


def test_an_issue_on_many_boards_is_paged_with_the_board_token(github):
    from ralph.github.fake._model import Item

    issue = github.add_issue("acme/shop", "On every board")
    for n in range(11):
        other = github.add_project("acme", f"Team board {n}")
        item = Item(other, issue)
        other.item_list.append(item)
        issue.items.append(item)
    tracker = tracker_of(github, Tokens("repo-token", "board-token"))
    tracker.set_state(issue.number, "Backlog", command="human")
    assert tracker.get_issue(issue.number).workflow_state is S.BACKLOG
    assert "IssueProjectItems" in [r.name for r in github.requests]


def test_doctor_checks_the_project_token_sees_a_private_repository_it_adds_issues_from():
    """GitHub hides a private repository from a classic token without ``repo``: a
    project token with only ``project`` could not add the repository's issues to the
    board, and a new issue would be left off it. Doctor says so before any run."""
    from ralph.errors import GitHubNotFound
    from ralph.tracker import check_board

    fake = FakeGitHub()
    fake.add_token("repo-token", "ralph", scopes="repo")
    fake.add_token("board-token", "ralph", scopes="project")
    fake.add_repository("acme/shop", private=True)
    tokens = Tokens("repo-token", "board-token")
    set_up_board(client_of(fake, tokens), "acme/shop")
    checks = {c.name: c for c in check_board(client_of(fake, tokens), "acme/shop", project=1)}
    check = checks["project token repository"]
    assert not check.ok
    assert "RALPH_GH_PROJECT_TOKEN cannot see acme/shop" in check.detail
    tracker = GitHubTracker(client_of(fake, tokens), owner="acme", repo="shop", project=1)
    with pytest.raises(GitHubNotFound):  # what doctor warned of
        tracker.create_issue("Left off the board", state=S.BACKLOG)

    fake.add_token("board-token", "ralph", scopes="repo, project")
    checks = {c.name: c for c in check_board(client_of(fake, tokens), "acme/shop", project=1)}
    assert checks["project token repository"].ok
    assert all(c.ok for c in checks.values())
