"""Jira Cloud as a project's tracker (a project's issues; its pull requests are local or
on another code host): opened, and set up by ``ralph init --jira PROJECT`` with the site
and the account from ``--jira-url`` and ``--jira-email`` (or ``RALPH_JIRA_URL`` and
``RALPH_JIRA_EMAIL``) and the token from ``RALPH_JIRA_TOKEN``. The client is imported
where it is used: a project on another tracker never loads it."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ralph._text import one_line
from ralph.config import (
    JIRA_ENV,
    JIRA_TOKEN_VARIABLES,
    Config,
    JiraSettings,
    env_value,
    jira_token,
    load_config,
    parse_jira_settings,
)
from ralph.db import Database
from ralph.errors import ConfigError
from ralph.git import GitRepo
from ralph.project._backend import Backend, InitAsk, ServiceSetUp
from ralph.tracker import Tracker

if TYPE_CHECKING:
    from ralph.jira import JiraClient

__all__ = ["JIRA"]

#: How long init waits for each of Jira's answers, in seconds: a person waits at the
#: terminal (a run's reads wait longer).
_REACH_TIMEOUT = 10.0
#: How long init waits out Jira's rate limits in all, in seconds (a run waits an hour).
_INIT_PATIENCE = 30.0


def _client(
    settings: JiraSettings,
    token: str,
    transport: object | None = None,
    *,
    timeout: float = 30.0,
) -> JiraClient:
    from ralph._rest_http import RestTransport
    from ralph.jira import HttpsTransport, JiraClient

    if transport is not None:
        chosen: RestTransport = transport  # type: ignore[assignment]
        return JiraClient(chosen)
    return JiraClient(HttpsTransport(settings.url, settings.email, token, timeout=timeout))


@contextmanager
def _open_tracker(config: Config, db: Database, git: GitRepo) -> Iterator[Tracker]:
    from ralph.tracker.jira import JiraTracker

    settings = config.settings_of(JiraSettings)
    client = _client(settings, jira_token(os.environ))
    try:
        yield JiraTracker(
            client,
            settings.project,
            statuses=settings.statuses,
            estimate_field=settings.estimate_field,
        )
    finally:
        client.close()


def _asked(ask: InitAsk) -> JiraSettings:
    """``--jira``'s project with the site and account the environment names (the
    option's project wins over ``RALPH_JIRA_PROJECT``)."""
    env = {k: v for k, v in ask.env.items() if k != JIRA_ENV["project"]}
    return parse_jira_settings({"project": ask.value}, "--jira", env)


def _init_check(ask: InitAsk) -> None:
    """The project key, the site and the account, and the token, before anything is
    read or written; an existing ralph.toml is never rewritten, so it must already name
    this project."""
    settings = _asked(ask)
    if not settings.url:
        raise ConfigError(
            "ralph init --jira needs the Jira site: add --jira-url https://YOURS.atlassian.net "
            "(or set RALPH_JIRA_URL)"
        )
    if not settings.email:
        raise ConfigError(
            "ralph init --jira needs the email of the API token's account: add --jira-email "
            "(or set RALPH_JIRA_EMAIL)"
        )
    jira_token(ask.env)
    if ask.existing is None:
        return
    unset = ("RALPH_TRACKER", *JIRA_ENV.values())
    config = load_config(ask.existing.parent, env={**ask.env, **dict.fromkeys(unset, "")})
    named = config.settings_of(JiraSettings).project
    if (config.tracker, named) != ("jira", settings.project):
        raise ConfigError(
            f'{ask.existing} exists and does not name this project; set tracker = "jira" and '
            f'a [jira] table with project = "{settings.project}" in it'
        )


def _set_up(ask: InitAsk) -> ServiceSetUp:
    """Whether Jira answers, takes the token and has the project; nothing is changed on
    Jira (its workflows are an admin's): what the project lacks for Ralph's states or
    estimates is said in one line each, and ralph.toml's [jira.statuses] is written for
    the person to map them."""
    from ralph.tracker.jira import StatusMap, read_project

    settings = _asked(ask)
    token = jira_token(ask.env)
    client = _client(settings, token, ask.transport, timeout=_REACH_TIMEOUT)
    try:
        with client.impatient(_INIT_PATIENCE):
            _reach(client, settings, ask.env)
            project = read_project(client, settings.project, settings.estimate_field)
    finally:
        client.close()
    notes = [f"Jira project {project.key} {project.name} at {settings.url}"]
    missing = project.missing(StatusMap.of(settings.statuses))
    if missing:
        notes.append(
            f"Its workflow has no status for {', '.join(missing)}: add them in Jira, or map "
            "each state to a status it has in [jira.statuses] of ralph.toml"
        )
    if project.estimate is None:
        notes.append(
            f"No field {settings.estimate_field!r} for estimates: name the story points or "
            "T-shirt field as [jira] estimate_field in ralph.toml"
        )
    # Names come from Jira: one printable line each for the terminal.
    return ServiceSetUp(settings=settings, notes=tuple(one_line(n) for n in notes))


def _reach(client: JiraClient, settings: JiraSettings, env: Mapping[str, str]) -> None:
    """One read of who the token is, so that init says at once what is wrong."""
    from ralph._rest_http import RestRequest
    from ralph.jira import ResponseKind

    outcome = client.send(RestRequest("GET", "/rest/api/3/myself"))
    if outcome.kind is ResponseKind.INDETERMINATE:
        raise ConfigError(
            f"cannot reach Jira at {settings.url} ({outcome.message}); check the URL and the "
            "network, then run ralph init again"
        )
    if outcome.kind in (ResponseKind.AUTH, ResponseKind.FORBIDDEN):
        variable = next(v for v in JIRA_TOKEN_VARIABLES if env_value(env, v))
        raise ConfigError(
            f"Jira refused {settings.email} with the API token in {variable}; make a token at "
            f"https://id.atlassian.com/manage-profile/security/api-tokens and set {variable}"
        )
    if outcome.kind is not ResponseKind.OK:
        raise ConfigError(
            f"Jira at {settings.url} answered {outcome.message}; check the URL "
            "(https://YOURS.atlassian.net)"
        )


JIRA = Backend(
    name="jira",
    open_tracker=_open_tracker,
    init_check=_init_check,
    set_up=_set_up,
)
