"""GitHub as a project's tracker (Issues and a Projects V2 board) and code host (pull
requests): opened, set up by ``ralph init --github OWNER/REPO`` and checked by ``ralph
doctor``. The client is imported where it is used: a local project never loads it."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.config import (
    TOKEN_VARIABLES,
    Config,
    GitHubSettings,
    env_value,
    load_config,
    parse_github_settings,
)
from ralph.db import Database
from ralph.errors import ConfigError, RalphError
from ralph.git import GitRepo
from ralph.project._backend import Backend, InitAsk, ServiceSetUp
from ralph.tracker import Tracker

if TYPE_CHECKING:
    from ralph.github import Transport
    from ralph.tracker import BoardSetup, Check, CodeHost, GitHubTracker

__all__ = ["GITHUB", "github_tracker", "on_github"]

_FULL_NAME = re.compile(r"^[A-Za-z0-9-]+/[A-Za-z0-9._-]+$")


def github_tracker(config: Config) -> GitHubTracker:
    """The GitHub tracker ``config`` names, over HTTPS with the environment's tokens."""
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
def _open_tracker(config: Config, db: Database, git: GitRepo) -> Iterator[Tracker]:
    tracker = github_tracker(config)
    try:
        yield tracker
    finally:
        tracker.close()


@contextmanager
def _open_code_host(
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


def _checks(config: Config) -> list[Check]:
    """What ``ralph doctor`` checks of GitHub as the code host beside another tracker
    (Linear): the token and the repository. A GitHub tracker's own checks cover them."""
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


def _repository(full_name: str) -> GitHubSettings:
    """``--github``'s repository as ralph.toml's [github] table names it."""
    if not _FULL_NAME.match(full_name):
        raise ConfigError(f"--github {full_name!r} is not OWNER/REPO (for example acme/shop)")
    owner, _, repo = full_name.partition("/")
    return GitHubSettings(owner=owner, repo=repo)


def _init_check(ask: InitAsk) -> None:
    """The repository's name; as the code host beside another tracker, an existing
    ralph.toml must already send pull requests there."""
    settings = _repository(ask.value)
    if ask.tracker or ask.existing is None:
        return
    unset = ("RALPH_TRACKER", "RALPH_LINEAR_TEAM", "RALPH_CODE_HOST", "RALPH_GH_OWNER")
    env = {**ask.env, **dict.fromkeys(unset, ""), "RALPH_GH_REPO": ""}
    config = load_config(ask.existing.parent, env=env)
    if (config.code_host_kind, config.github.owner, config.github.repo) != (
        "github",
        settings.owner,
        settings.repo,
    ):
        raise ConfigError(
            f"{ask.existing} exists and does not send pull requests to this repository; set "
            f'code_host = "github" and a [github] table with owner = "{settings.owner}", '
            f'repo = "{settings.repo}" in it'
        )


def _set_up(ask: InitAsk) -> ServiceSetUp:
    transport: Transport | None = ask.transport  # type: ignore[assignment]
    if not ask.tracker:
        settings = _repository(ask.value)
        branch = _check_repository(ask.value, ask.env, transport)
        return ServiceSetUp(settings=settings, repo=settings.repo, default_branch=branch)
    board = _set_up_board(ask.value, ask.project, ask.env, transport)
    owner, _, repo = ask.value.partition("/")
    settings = GitHubSettings(
        owner=owner,
        repo=repo,
        project=board.board.number,
        project_owner=env_value(ask.env, "RALPH_GH_PROJECT_OWNER"),
    )
    if ask.existing is not None:
        _check_same_board(ask.existing, settings, ask.env)
    return ServiceSetUp(
        settings=settings, repo=settings.repo, default_branch=board.default_branch, board=board
    )


def _check_repository(full_name: str, env: Mapping[str, str], transport: Transport | None) -> str:
    """That the token reaches ``full_name`` (GitHub as the code host alone), and its
    default branch."""
    from ralph.project._github import github_client
    from ralph.tracker.github import repository_default_branch

    if not any(env_value(env, variable) for variable in TOKEN_VARIABLES):
        # Not github_client's message: without a board, no project scope is needed.
        raise ConfigError(
            f"no GitHub token: set RALPH_GH_TOKEN to a token that may push to {full_name} "
            "and merge its pull requests (a classic token: the repo scope)"
        )
    from_env = parse_github_settings(None, "environment", env)
    client = github_client(from_env, env, transport=transport)
    try:
        return repository_default_branch(client, full_name)
    finally:
        client.close()


def _set_up_board(
    full_name: str, project: int | None, env: Mapping[str, str], transport: Transport | None
) -> BoardSetup:
    from ralph.project._github import github_client
    from ralph.tracker import set_up_board

    _repository(full_name)
    if project is not None and project <= 0:
        raise ConfigError(f"--project {project} is not a project number (1, 2, ...)")
    from_env = parse_github_settings(None, "environment", env)
    client = github_client(from_env, env, transport=transport)
    try:
        return set_up_board(
            client, full_name, project=project, project_owner=from_env.project_owner
        )
    finally:
        client.close()


def _check_same_board(path: Path, settings: GitHubSettings, env: Mapping[str, str]) -> None:
    """An existing ralph.toml is never rewritten; it must already name this board."""
    config = load_config(path.parent, env={**env, "RALPH_TRACKER": ""})
    mine = config.github
    if (config.tracker, mine.owner, mine.repo, mine.project) != (
        "github",
        settings.owner,
        settings.repo,
        settings.project,
    ):
        raise ConfigError(
            f"{path} exists and does not name this board (ready on GitHub); set tracker = "
            f'"github" and a [github] table with owner = "{settings.owner}", repo = '
            f'"{settings.repo}", project = {settings.project} in it'
        )


def on_github(existing: Path | None, env: Mapping[str, str]) -> bool:
    """Whether an existing ralph.toml (or the environment) names the GitHub tracker
    (``--actions`` writes workflows that sync a GitHub board)."""
    if existing is None:
        return env_value(env, "RALPH_TRACKER") == "github"
    return load_config(existing.parent, env=env).tracker == "github"


GITHUB = Backend(
    name="github",
    open_tracker=_open_tracker,
    open_code_host=_open_code_host,
    init_check=_init_check,
    set_up=_set_up,
    checks=_checks,
    boards=True,
    pull_requests_at=lambda config: f"GitHub {config.github.owner}/{config.github.repo}",
)
