"""GitLab as a project's tracker (a project's issues): opened, and set up by ``ralph init
--gitlab GROUP/PROJECT`` (``--gitlab-url`` for a self-managed instance). The client is
imported where it is used: a project on another tracker never loads it."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ralph.config import (
    GITLAB_TOKEN_VARIABLES,
    Config,
    GitLabSettings,
    env_value,
    gitlab_token,
    load_config,
    parse_gitlab_settings,
)
from ralph.db import Database
from ralph.errors import ConfigError
from ralph.git import GitRepo
from ralph.project._backend import Backend, InitAsk, ServiceSetUp
from ralph.project._gitlab_code_host import gitlab_code_host_checks, open_gitlab_code_host
from ralph.tracker import Tracker

if TYPE_CHECKING:
    from ralph._rest_http import RestTransport
    from ralph.gitlab import GitLabClient

__all__ = ["GITLAB"]

#: How long init waits for GitLab's first answer, in seconds per try, and how many
#: tries: a person waits at the terminal (a run's reads retry for longer).
_REACH_TIMEOUT = 10.0
_REACH_TRIES = 2


def _client(settings: GitLabSettings, env: Mapping[str, str], **kwargs: float) -> GitLabClient:
    from ralph.gitlab import GitLabClient, https_transport

    return GitLabClient(https_transport(settings.base_url, **kwargs), gitlab_token(env))


@contextmanager
def _open_tracker(config: Config, db: Database, git: GitRepo) -> Iterator[Tracker]:
    from ralph.tracker.gitlab import GitLabTracker

    settings = config.settings_of(GitLabSettings)
    client = _client(settings, os.environ)
    try:
        yield GitLabTracker(
            client,
            settings.project,
            web_url=settings.base_url,
            own_code_host=config.code_host_kind == "gitlab",
        )
    finally:
        client.close()


def _settings(ask: InitAsk) -> GitLabSettings:
    """``--gitlab``'s project (and ``--gitlab-url``, given as RALPH_GITLAB_URL), checked
    as ralph.toml's [gitlab] table would be."""
    env = {"RALPH_GITLAB_URL": env_value(ask.env, "RALPH_GITLAB_URL")}
    return parse_gitlab_settings({"project": ask.value}, "--gitlab", env)


def _init_check(ask: InitAsk) -> None:
    """The project's path; an existing ralph.toml is never rewritten, so it must
    already name this project."""
    settings = _settings(ask)
    if ask.existing is None:
        return
    unset = ("RALPH_TRACKER", "RALPH_GITLAB_PROJECT", "RALPH_CODE_HOST")
    config = load_config(ask.existing.parent, env={**ask.env, **dict.fromkeys(unset, "")})
    named = config.settings_of(GitLabSettings).project
    if ask.tracker and (config.tracker, named) != ("gitlab", settings.project):
        raise ConfigError(
            f'{ask.existing} exists and does not name this project; set tracker = "gitlab" '
            f'and a [gitlab] table with project = "{settings.project}" in it'
        )


def _set_up(ask: InitAsk) -> ServiceSetUp:
    """Ralph's labels in the project (the missing ones created), once GitLab answers
    and takes the token."""
    from ralph.gitlab import GitLabClient, https_transport
    from ralph.tracker.gitlab import read_project, set_up_project

    settings = _settings(ask)
    token = gitlab_token(ask.env)
    given: RestTransport | None = ask.transport  # type: ignore[assignment]
    probe = GitLabClient(given or https_transport(settings.base_url, timeout=_REACH_TIMEOUT), token)
    try:
        _reach(probe, settings, ask.env)
    finally:
        probe.close()
    client = GitLabClient(given or https_transport(settings.base_url), token)
    notes: list[str] = []
    try:
        found = read_project(client, settings.project)
        if ask.tracker:
            made = set_up_project(client, settings.project).created
            where = f"GitLab project {settings.project}"
            notes.append(
                f"{where}: created {len(made)} of Ralph's labels (ralph::Backlog ...)"
                if made
                else f"{where}: has Ralph's labels"
            )
    finally:
        client.close()
    return ServiceSetUp(
        settings=settings,
        repo=settings.project.rsplit("/", 1)[-1],
        default_branch=str(found.get("default_branch") or ""),
        notes=tuple(notes),
    )


def _reach(client: GitLabClient, settings: GitLabSettings, env: Mapping[str, str]) -> None:
    """Whether GitLab answers and takes the token: one read, tried twice a second apart,
    so that init says at once what is wrong and what to do."""
    from ralph.gitlab import ResponseKind

    outcome = client.send("GET", "/user")
    for _ in range(_REACH_TRIES - 1):
        if outcome.kind is not ResponseKind.INDETERMINATE:
            break
        time.sleep(1.0)
        outcome = client.send("GET", "/user")
    if outcome.kind is ResponseKind.INDETERMINATE:
        raise ConfigError(
            f"cannot reach GitLab at {settings.base_url} ({outcome.message}); check the "
            "network and --gitlab-url, then run ralph init again"
        )
    if outcome.kind in (ResponseKind.AUTH, ResponseKind.FORBIDDEN):
        variable = next(v for v in GITLAB_TOKEN_VARIABLES if env_value(env, v))
        raise ConfigError(
            f"GitLab at {settings.base_url} refused the token in {variable}; create a "
            f"personal access token with the api scope and set {variable} to it"
        )
    if outcome.kind is not ResponseKind.OK:
        raise ConfigError(
            f"GitLab at {settings.base_url} answered {outcome.message}; is it a GitLab "
            "instance's address (--gitlab-url)?"
        )


GITLAB = Backend(
    name="gitlab",
    open_tracker=_open_tracker,
    open_code_host=open_gitlab_code_host,
    init_check=_init_check,
    set_up=_set_up,
    checks=gitlab_code_host_checks,
    pull_requests_at=lambda config: f"GitLab {config.settings_of(GitLabSettings).project}",
)
