"""Trackers and code hosts on every backend, and real git repositories for the local
code host's merges."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from ralph.db import Database, PostgresDatabase, SqliteDatabase, open_database
from ralph.db._postgres import _PgTx
from ralph.db._sqlite import _SqliteTx
from ralph.git import GitRepo
from ralph.github import GitHubClient, PacingPolicy, Tokens
from ralph.github import Pacer as GitHubPacer
from ralph.github.fake import FakeGitHub
from ralph.gitlab import GitLabClient
from ralph.gitlab.fake import FakeGitLab
from ralph.jira import JiraClient
from ralph.jira.fake import FakeJira, ralph_statuses
from ralph.linear import LinearClient
from ralph.linear.fake import FakeLinear
from ralph.tracker import (
    CodeHost,
    GitHubCodeHost,
    GitHubTracker,
    LocalCodeHost,
    LocalTracker,
    Tracker,
    set_up_board,
)
from ralph.tracker.gitlab import GitLabTracker, set_up_project
from ralph.tracker.jira import JiraTracker
from ralph.tracker.linear import LinearTracker, set_up_team

from ..conftest import GitProject

TRACKERS = [
    "local-memory",
    "local-sqlite",
    pytest.param("local-postgres", marks=pytest.mark.postgres),
    "github",
    "linear-fake",
    "jira-fake",
    "gitlab-fake",
]


@pytest.fixture(params=TRACKERS)
def tracker_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def tracker(
    tracker_kind: str, project: GitProject, clock, tmp_path: Path, request
) -> Iterator[Tracker]:
    if tracker_kind == "github":
        made = github_tracker(project.path, clock)
        yield made
        assert isinstance(made.client.transport, FakeGitHub)
        assert made.client.transport.internal_errors == []
        return
    if tracker_kind == "linear-fake":
        linear = linear_tracker(clock)
        yield linear
        assert isinstance(linear.client.transport, FakeLinear)
        assert linear.client.transport.internal_errors == []
        return
    if tracker_kind == "jira-fake":
        jira = jira_tracker(clock)
        yield jira
        assert isinstance(jira.client.transport, FakeJira)
        assert jira.client.transport.internal_errors == []
        return
    if tracker_kind == "gitlab-fake":
        gitlab = gitlab_tracker(clock)
        yield gitlab
        fake = gitlab.client.transport
        assert isinstance(fake, FakeGitLab)
        assert (fake.internal_errors, fake.refused, fake.warnings) == ([], [], [])
        return
    db: Database
    if tracker_kind == "local-memory":  # what tests that need no file use
        db = open_database("memory://")
    elif tracker_kind == "local-sqlite":
        db = SqliteDatabase(tmp_path / "ralph.db")
    else:
        db = PostgresDatabase(request.getfixturevalue("pg_schema_url"))
    yield LocalTracker(db, repo="project", clock=clock)
    db.close()


@pytest.fixture
def host(tracker: Tracker, project: GitProject, clock) -> CodeHost:
    """The code host of ``tracker``'s kind, closing its issues when a merge does."""
    if isinstance(tracker, GitHubTracker):
        return GitHubCodeHost.of(tracker)
    if isinstance(tracker, GitLabTracker):
        from ralph.tracker.gitlab import GitLabCodeHost

        # Merge requests merge in ``project``'s repository, as GitLab merges on its side.
        fake = tracker.client.transport
        assert isinstance(fake, FakeGitLab)
        found = fake.state.project(tracker.project)
        assert found is not None
        found.repository = project.path
        return GitLabCodeHost.of(tracker)
    assert isinstance(tracker, LocalTracker)
    git = GitRepo(project.path)
    return LocalCodeHost(tracker.db, repo=tracker.repo, tracker=tracker, git=git, clock=clock)


def github_tracker(git_path: Path, clock) -> GitHubTracker:
    """A GitHub tracker on a fake GitHub whose repository is ``git_path`` (pull requests
    merge there, as GitHub merges on its side), with a board set up by ``ralph init``'s
    code. Mutations are not spaced here; pacing has its own tests."""
    fake = FakeGitHub(clock=clock)
    fake.add_token("token", "ralph")
    fake.add_repository("acme/project", git_path=git_path)
    pacer = GitHubPacer(PacingPolicy(mutation_interval=0), clock=clock, sleep=clock.advance)
    client = GitHubClient(fake, Tokens("token"), pacer=pacer, clock=clock, sleep=clock.advance)
    board = set_up_board(client, "acme/project").board
    return GitHubTracker(client, owner="acme", repo="project", project=board.number, clock=clock)


def github_tracker_as(tracker: GitHubTracker, login: str) -> GitHubTracker:
    """``tracker``'s GitHub seen by another account, ``login``: with a token of its own
    (GitHub names the token's user as the author of every review and reply)."""
    fake = tracker.client.transport
    assert isinstance(fake, FakeGitHub)
    token = f"token-of-{login}"
    fake.add_token(token, login)
    clock = tracker.now
    pacer = GitHubPacer(PacingPolicy(mutation_interval=0), clock=clock, sleep=lambda _: None)
    client = GitHubClient(fake, Tokens(token), pacer=pacer, clock=clock, sleep=lambda _: None)
    return GitHubTracker(
        client, owner=tracker.owner, repo=tracker.repo, project=tracker.project_number, clock=clock
    )


def github_host_as(host: CodeHost, login: str) -> GitHubCodeHost:
    """``host``'s GitHub seen by another account, ``login`` (see ``github_tracker_as``)."""
    assert isinstance(host.tracker, GitHubTracker)
    return GitHubCodeHost.of(github_tracker_as(host.tracker, login))


def linear_tracker(clock) -> LinearTracker:
    """A Linear tracker on a FakeLinear team (ENG, Linear's default states) set up by
    ``ralph init``'s code; the key's user is ``ralph``; Linear's own budgets. Pacing
    waits are skipped (the fake clock stays where the tests put it); pacing has its own
    tests."""
    fake = FakeLinear(clock=clock)
    fake.add_token("lin_api_contract", "ralph")
    fake.add_team("ENG", "Engineering")
    client = LinearClient(fake, "lin_api_contract", clock=clock, sleep=lambda _: None)
    set_up_team(client, "ENG")
    return LinearTracker(client, "ENG", clock=clock)


def jira_tracker(clock) -> JiraTracker:
    """A Jira tracker on a FakeJira project (PROJ) whose workflow has a status for each
    of Ralph's states and moves any to any; the token's account is ``ralph``. Pacing
    waits are skipped (the fake clock stays where the tests put it)."""
    fake = FakeJira(clock=clock)
    fake.add_account("ralph@example.com", "jira-contract-token", "ralph")
    fake.add_project("PROJ", "Project", ralph_statuses())
    client = JiraClient(fake, clock=clock, sleep=lambda _: None)
    return JiraTracker(client, "PROJ", clock=clock)


def gitlab_tracker(clock) -> GitLabTracker:
    """A GitLab tracker on a FakeGitLab project (acme/project, Premium) set up by ``ralph
    init``'s code; the token's user is ``ralph``; GitLab.com's rate limit. Pacing waits
    are skipped (the fake clock stays where the tests put it); pacing has its own tests."""
    fake = FakeGitLab(clock=clock)
    fake.add_token("glpat-contract", "ralph")
    fake.add_project("acme/project")
    client = GitLabClient(fake, "glpat-contract", clock=clock, sleep=lambda _: None)
    set_up_project(client, "acme/project")
    return GitLabTracker(client, "acme/project", clock=clock)


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every statement either dialect's transactions run."""
    seen: list[str] = []
    for tx_class in (_SqliteTx, _PgTx):
        for name in ("rows", "run", "columns"):
            if name not in vars(tx_class):
                continue
            original = getattr(tx_class, name)

            def counting(self: Any, sql: str, params: Sequence[Any] = (), _o: Any = original):
                seen.append(sql)
                return _o(self, sql, params)

            monkeypatch.setattr(tx_class, name, counting)
    return seen
