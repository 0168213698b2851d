"""GitLab as a project's code host through the registry: opened from ralph.toml beside a
local tracker (its own client, over HTTP to the fake GitLab) or beside a GitLab tracker
(one client for both), and what ``ralph doctor`` checks of it beside another tracker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ralph.config import load_config
from ralph.db import open_database
from ralph.git import GitRepo
from ralph.gitlab.fake import FakeGitLab
from ralph.project._backends import BACKENDS, code_host_checks
from ralph.tracker import LocalTracker
from ralph.tracker.gitlab import GitLabCodeHost

from ..conftest import GitProject

TOKEN = "glpat-backend-test-token"


@pytest.fixture
def served(project: GitProject) -> Iterator[str]:
    fake = FakeGitLab()
    fake.add_token(TOKEN, "ralph")
    fake.add_project("acme/app", repository=project.path)
    with fake.serve() as url:
        yield url


def config_of(project: GitProject, url: str, tracker: str, monkeypatch):
    (project.path / "ralph.toml").write_text(
        f'tracker = "{tracker}"\ncode_host = "gitlab"\nrepo = "app"\n'
        f'[gitlab]\nproject = "acme/app"\nurl = "{url}"\n'
    )
    monkeypatch.setenv("RALPH_GITLAB_TOKEN", TOKEN)
    return load_config(project.path, env={})


def test_beside_a_local_tracker_gitlab_holds_the_merge_requests(served, project, monkeypatch):
    config = config_of(project, served, "local", monkeypatch)
    db = open_database("memory://")
    tracker = LocalTracker(db, repo="app")
    opener = BACKENDS["gitlab"].open_code_host
    assert opener is not None
    project.commit("feature", {"a.txt": "a\n"}, "work")
    with opener(config, db, GitRepo(project.path), tracker) as host:
        assert isinstance(host, GitLabCodeHost)
        pr = host.create_pull_request(head="feature", base="main", title="Work")
        assert host.get_pull_request(pr.number).mergeable is True
    db.close()


def test_beside_a_gitlab_tracker_one_client_serves_both(served, project, monkeypatch):
    config = config_of(project, served, "gitlab", monkeypatch)
    tracker_opener = BACKENDS["gitlab"].open_tracker
    host_opener = BACKENDS["gitlab"].open_code_host
    assert tracker_opener is not None
    assert host_opener is not None
    db = open_database("memory://")
    git = GitRepo(project.path)
    with tracker_opener(config, db, git) as tracker, host_opener(config, db, git, tracker) as host:
        assert isinstance(host, GitLabCodeHost)
        assert host.client is tracker.client  # type: ignore[attr-defined]
        assert tracker.closing_words(3) == "Closes #3"
    db.close()


def test_doctor_warns_that_gitlab_would_close_its_own_issues_beside_another_tracker(
    served, project, monkeypatch
):
    config = config_of(project, served, "local", monkeypatch)
    checks = code_host_checks(config)
    assert [(c.name, c.ok, c.warning) for c in checks] == [
        ("GitLab", True, False),
        ("GitLab issues", True, True),
    ]
    assert "Auto-close referenced issues" in checks[1].detail


def test_doctor_names_a_refused_token_in_one_line(served, project, monkeypatch):
    config = config_of(project, served, "local", monkeypatch)
    monkeypatch.setenv("RALPH_GITLAB_TOKEN", "glpat-wrong")
    [check] = code_host_checks(config)
    assert not check.ok
    assert "\n" not in check.detail
    assert "glpat-wrong" not in check.detail
