"""Which tracker and which code host a project uses: one entry per kind, each opening
its backend from the settings for a ``with`` block and closing it after. A new backend
(Linear issues, GitLab pull requests) is one entry here and its settings in
``ralph.config``, whose ``TRACKERS`` and ``CODE_HOSTS`` name the same kinds."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING

from ralph.config import Config
from ralph.db import Database
from ralph.errors import ConfigError, RalphError
from ralph.git import GitRepo
from ralph.tracker import CodeHost, LocalCodeHost, LocalTracker, Tracker

if TYPE_CHECKING:
    from ralph.tracker import Check, GitHubTracker

__all__ = [
    "CODE_HOSTS",
    "TEST_CHECK",
    "TRACKERS",
    "code_host_checks",
    "first_issue",
    "github_tracker",
    "required_checks",
]

#: The local code host's one required check: the project's test command, run on what a
#: pull request would merge (``phases.run_required_check``).
TEST_CHECK = "test"

#: Opens a tracker: the settings, the project's database and its git repository.
OpenTracker = Callable[[Config, Database, GitRepo], AbstractContextManager[Tracker]]
#: Opens a code host: the same, and the tracker whose issues its merges close.
OpenCodeHost = Callable[[Config, Database, GitRepo, Tracker], AbstractContextManager[CodeHost]]


def required_checks(config: Config) -> tuple[str, ...]:
    """The checks a local pull request must pass: none while nothing is tested."""
    return (TEST_CHECK,) if config.test_command.strip() else ()


def github_tracker(config: Config) -> GitHubTracker:
    """The GitHub tracker ``config`` names, over HTTPS with the environment's tokens."""
    # Here, not above: a project on the local tracker never loads the GitHub client.
    from ralph.github import ALL_ISSUE_FEATURES
    from ralph.project._github import github_client
    from ralph.tracker import GitHubTracker

    settings = config.github
    return GitHubTracker(
        github_client(settings, os.environ),
        owner=settings.owner,
        repo=settings.repo,
        project=settings.project,
        project_owner=settings.project_owner,
        # GitHub Enterprise Server may lack sub-issues or dependencies: ask it once.
        features=None if settings.api_url else ALL_ISSUE_FEATURES,
    )


@contextmanager
def _local_tracker(config: Config, db: Database, git: GitRepo) -> Iterator[Tracker]:
    if db.in_memory:
        raise ConfigError(
            "the local tracker keeps its issues in the database; set store to "
            "sqlite:///path or postgresql://... (memory:// forgets them on exit)"
        )
    yield LocalTracker(db, repo=config.repo)


@contextmanager
def _github_tracker(config: Config, db: Database, git: GitRepo) -> Iterator[Tracker]:
    tracker = github_tracker(config)
    try:
        yield tracker
    finally:
        tracker.close()


@contextmanager
def _linear_tracker(config: Config, db: Database, git: GitRepo) -> Iterator[Tracker]:
    # Here, not above: a project on another tracker never loads the Linear client.
    from ralph.config import linear_token
    from ralph.linear import HttpTransport, LinearClient
    from ralph.tracker.linear import LinearTracker

    settings = config.linear
    token = linear_token(os.environ)
    client = LinearClient(HttpTransport(settings.url), token)
    try:
        yield LinearTracker(client, settings.team)
    finally:
        client.close()


@contextmanager
def _local_code_host(
    config: Config, db: Database, git: GitRepo, tracker: Tracker
) -> Iterator[CodeHost]:
    if db.in_memory:
        raise ConfigError(
            "the local code host keeps its pull requests in the database; set store to "
            "sqlite:///path or postgresql://... (memory:// forgets them on exit)"
        )
    yield LocalCodeHost(
        db, repo=config.repo, tracker=tracker, git=git, required_checks=required_checks(config)
    )


@contextmanager
def _github_code_host(
    config: Config, db: Database, git: GitRepo, tracker: Tracker
) -> Iterator[CodeHost]:
    from ralph.project._github import github_client
    from ralph.tracker import GitHubCodeHost, GitHubTracker

    settings = config.github
    if isinstance(tracker, GitHubTracker):  # one client, and the repository read once
        yield GitHubCodeHost.of(tracker)
        return
    client = github_client(settings, os.environ)
    try:
        yield GitHubCodeHost(client, owner=settings.owner, repo=settings.repo, tracker=tracker)
    finally:
        client.close()


def code_host_checks(config: Config) -> list[Check]:
    """What ``ralph doctor`` checks of GitHub as the code host beside another tracker
    (Linear): the token and the repository. A GitHub tracker's own checks cover them."""
    if config.code_host_kind != "github" or config.tracker == "github":
        return []
    from ralph.project._github import github_client
    from ralph.tracker.github import Check, check_repository

    settings = config.github
    try:
        client = github_client(settings, os.environ)
    except RalphError as exc:
        return [Check("GitHub", False, str(exc))]
    try:
        return check_repository(client, f"{settings.owner}/{settings.repo}")
    except RalphError as exc:
        return [Check("GitHub", False, str(exc))]
    finally:
        client.close()


#: How a hint names the first issue a person files on a new board: the local tracker
#: numbers its board from 1; a service (GitHub, Linear) gives the next of its own numbers.
_FIRST_ISSUE = {"local": "1"}


def first_issue(config: Config) -> str:
    """The number ``ralph init``'s closing hint gives the first issue ("N": unknown)."""
    return _FIRST_ISSUE.get(config.tracker, "N")


TRACKERS: dict[str, OpenTracker] = {
    "local": _local_tracker,
    "github": _github_tracker,
    "linear": _linear_tracker,
}
CODE_HOSTS: dict[str, OpenCodeHost] = {"local": _local_code_host, "github": _github_code_host}
