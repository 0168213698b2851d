"""Whom an escalation comment notifies: ralph.toml's escalate_to, else the issue's
assignees, else whom the tracker names (as the original's ``@owner Escalation:``, a GitHub
board's owner)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from ralph.config import Config, GitHubSettings
from ralph.db import open_database
from ralph.git import GitRepo
from ralph.github import GitHubClient
from ralph.phases._runner import escalation_mention
from ralph.project import Project
from ralph.tasks import open_store
from ralph.tracker import GitHubTracker, Issue, LocalCodeHost, LocalTracker, Tracker


class _Client:
    """Enough of a client to build a GitHubTracker that is never asked to read."""

    def on_write(self, listener: Any) -> None:
        return None


class _OwnedTracker(LocalTracker):
    """A tracker that names whom an escalation mentions, as the GitHub tracker does."""

    def escalation_handles(self) -> tuple[str, ...]:
        return ("@acme",)


def project(board: Tracker | None = None, **settings) -> Project:
    config = Config(root=Path("."), repo="shop", **settings)
    db = open_database("memory://")
    tracker = board or LocalTracker(db, repo="demo")
    return Project(
        config,
        tracker,
        LocalCodeHost(db, repo="demo", tracker=tracker),
        open_store("memory://"),
        GitRepo(Path(".")),
    )


GITHUB: dict[str, Any] = {
    "tracker": "github",
    "github": GitHubSettings(owner="acme", repo="shop", project=1),
}


def test_escalate_to_wins_over_everything():
    issue = Issue(number=1, title="t", assignees=("bob",))
    assert escalation_mention(project(escalate_to="@alice", **GITHUB), issue) == "@alice "


def test_without_it_the_assignees_are_mentioned():
    issue = Issue(number=1, title="t", assignees=("bob", "carol"))
    assert escalation_mention(project(**GITHUB), issue) == "@bob @carol "


def test_with_nobody_assigned_whom_the_tracker_names_is_mentioned():
    assert escalation_mention(
        project(_OwnedTracker(open_database("memory://"), repo="demo"), **GITHUB),
        Issue(number=1, title="t"),
    ) == ("@acme ")


def test_the_github_tracker_names_the_repository_owner_as_the_original_did():
    client = cast(GitHubClient, _Client())
    tracker = GitHubTracker(client, owner="acme", repo="shop", project=1)
    assert tracker.escalation_handles() == ("@acme",)
    nameless = GitHubTracker(client, owner="", repo="shop", project=1)
    assert nameless.escalation_handles() == ()


def test_on_the_local_tracker_with_nobody_named_nobody_is_mentioned():
    assert escalation_mention(project(), Issue(number=1, title="t")) == ""
