"""Whom an escalation comment notifies: ralph.toml's escalate_to, else the issue's
assignees, else (as the original's ``@owner Escalation:``) a GitHub board's owner."""

from __future__ import annotations

from pathlib import Path

from ralph.config import Config, GitHubSettings
from ralph.db import open_database
from ralph.git import GitRepo
from ralph.phases._runner import escalation_mention
from ralph.project import Project
from ralph.tasks import open_store
from ralph.tracker import Issue, LocalTracker, MemoryCodeHost


def project(**settings) -> Project:
    config = Config(root=Path("."), repo="shop", **settings)
    tracker = LocalTracker(open_database("memory://"), repo="demo")
    return Project(
        config, tracker, MemoryCodeHost(tracker), open_store("memory://"), GitRepo(Path("."))
    )


GITHUB = {"tracker": "github", "github": GitHubSettings(owner="acme", repo="shop", project=1)}


def test_escalate_to_wins_over_everything():
    issue = Issue(number=1, title="t", assignees=("bob",))
    assert escalation_mention(project(escalate_to="@alice", **GITHUB), issue) == "@alice "


def test_without_it_the_assignees_are_mentioned():
    issue = Issue(number=1, title="t", assignees=("bob", "carol"))
    assert escalation_mention(project(**GITHUB), issue) == "@bob @carol "


def test_on_github_with_nobody_assigned_the_owner_is_mentioned_as_the_original_did():
    assert escalation_mention(project(**GITHUB), Issue(number=1, title="t")) == "@acme "


def test_on_the_local_tracker_with_nobody_named_nobody_is_mentioned():
    assert escalation_mention(project(), Issue(number=1, title="t")) == ""
