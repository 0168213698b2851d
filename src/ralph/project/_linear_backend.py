"""Linear as a project's tracker (a team's issues; its pull requests are local or on
another code host): opened, and set up by ``ralph init --linear TEAM``. The client is
imported where it is used: a project on another tracker never loads it."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ralph.config import (
    LINEAR_TOKEN_VARIABLES,
    Config,
    LinearSettings,
    env_value,
    linear_token,
    load_config,
    parse_linear_settings,
)
from ralph.db import Database
from ralph.errors import ConfigError
from ralph.git import GitRepo
from ralph.project._backend import Backend, InitAsk, ServiceSetUp
from ralph.tracker import Tracker

if TYPE_CHECKING:
    from ralph.linear import LinearClient, Transport
    from ralph.tracker.linear import TeamSetup

__all__ = ["LINEAR"]

#: How long init waits for Linear's first answer, in seconds per try, and how many
#: tries: a person waits at the terminal (a run's reads retry for longer).
_REACH_TIMEOUT = 10.0
_REACH_TRIES = 2


@contextmanager
def _open_tracker(config: Config, db: Database, git: GitRepo) -> Iterator[Tracker]:
    from ralph.linear import HttpTransport, LinearClient
    from ralph.tracker.linear import LinearTracker

    settings = config.linear
    token = linear_token(os.environ)
    client = LinearClient(HttpTransport(settings.url), token)
    try:
        yield LinearTracker(client, settings.team)
    finally:
        client.close()


def _team_key(key: str) -> str:
    """``--linear``'s team key, checked as ralph.toml's linear.team would be."""
    return parse_linear_settings({"team": key}, "--linear", {}).team


def _init_check(ask: InitAsk) -> None:
    """The team's key; an existing ralph.toml is never rewritten, so it must already
    name this team."""
    team = _team_key(ask.value)
    if ask.existing is None:
        return
    unset = ("RALPH_TRACKER", "RALPH_LINEAR_TEAM", "RALPH_CODE_HOST", "RALPH_GH_OWNER")
    env = {**ask.env, **dict.fromkeys(unset, ""), "RALPH_GH_REPO": ""}
    config = load_config(ask.existing.parent, env=env)
    if (config.tracker, config.linear.team) != ("linear", team):
        raise ConfigError(
            f'{ask.existing} exists and does not name this team; set tracker = "linear" and '
            f'a [linear] table with team = "{team}" in it'
        )


def _set_up(ask: InitAsk) -> ServiceSetUp:
    key = _team_key(ask.value)
    transport: Transport | None = ask.transport  # type: ignore[assignment]
    team = _set_up_team(key, ask.env, transport)
    return ServiceSetUp(settings=LinearSettings(team=key), team=team)


def _set_up_team(key: str, env: Mapping[str, str], transport: Transport | None) -> TeamSetup:
    """Ralph's workflow states on team ``key`` (created where missing); nothing written
    when the team's estimates or states cannot hold Ralph's."""
    from ralph.linear import HttpTransport, LinearClient
    from ralph.tracker.linear import set_up_team

    token = linear_token(env)
    url = parse_linear_settings(None, "environment", env).url
    probe = LinearClient(transport or HttpTransport(url, timeout=_REACH_TIMEOUT), token)
    try:
        _reach(probe, url, env)
    finally:
        probe.close()
    client = LinearClient(transport or HttpTransport(url), token)
    try:
        return set_up_team(client, key)
    finally:
        client.close()


def _reach(client: LinearClient, url: str, env: Mapping[str, str]) -> None:
    """Whether Linear answers and takes the key: one read, tried twice a second apart
    and logged nowhere, so that init says at once what is wrong and what to do instead
    of retrying for a quarter of a minute with a log line per try."""
    from ralph.linear import API_URL_VARIABLE, ResponseKind
    from ralph.linear.queries import VIEWER

    outcome = client.send(VIEWER, {})
    for _ in range(_REACH_TRIES - 1):
        if outcome.kind is not ResponseKind.INDETERMINATE:
            break
        time.sleep(1.0)
        outcome = client.send(VIEWER, {})
    if outcome.kind is ResponseKind.INDETERMINATE:
        check = "and " + API_URL_VARIABLE if env_value(env, API_URL_VARIABLE) else "(a proxy?)"
        raise ConfigError(
            f"cannot reach Linear at {url} ({outcome.message}); check the network {check}, "
            "then run ralph init again"
        )
    if outcome.kind in (ResponseKind.AUTH, ResponseKind.FORBIDDEN):
        variable = next(v for v in LINEAR_TOKEN_VARIABLES if env_value(env, v))
        raise ConfigError(
            f"Linear refused the API key in {variable}; create a personal API key "
            f"(Linear: Settings → Security & access → Personal API keys) and set {variable} "
            "to it"
        )


LINEAR = Backend(
    name="linear",
    open_tracker=_open_tracker,
    init_check=_init_check,
    set_up=_set_up,
)
