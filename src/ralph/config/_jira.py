"""The ``[jira]`` table of ralph.toml, and the API token, which only ever comes from the
environment (a token in a file ends up in git).

    [jira]
    url = "https://acme.atlassian.net"      # RALPH_JIRA_URL: the Jira Cloud site
    project = "PROJ"                        # RALPH_JIRA_PROJECT: the key, as in PROJ-12
    email = "you@acme.com"                  # RALPH_JIRA_EMAIL: the token's account
    estimate_field = "Story point estimate" # RALPH_JIRA_ESTIMATE_FIELD: points or T-shirt
    [jira.statuses]                         # Ralph's state = the project's status
    "In Review" = "Code Review"

The token: ``RALPH_JIRA_TOKEN``, else ``JIRA_API_TOKEN``. As for GitHub, a value that
starts with ``${`` is an unexpanded placeholder and counts as unset.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ralph.config._github import env_value
from ralph.config._tables import section_table
from ralph.config._urls import service_url
from ralph.errors import ConfigError
from ralph.workflow import WorkflowState

__all__ = [
    "DEFAULT_ESTIMATE_FIELD",
    "JIRA_ENV",
    "JIRA_TOKEN_VARIABLES",
    "JiraSettings",
    "jira_table",
    "jira_token",
    "parse_jira_settings",
]

DEFAULT_ESTIMATE_FIELD = "Story point estimate"
JIRA_TOKEN_VARIABLES = ("RALPH_JIRA_TOKEN", "JIRA_API_TOKEN")
JIRA_ENV = {
    "url": "RALPH_JIRA_URL",
    "project": "RALPH_JIRA_PROJECT",
    "email": "RALPH_JIRA_EMAIL",
    "estimate_field": "RALPH_JIRA_ESTIMATE_FIELD",
}
_KEYS = (*JIRA_ENV, "statuses")
_SECRET_KEYS = ("token", "api_token", "password")
#: A project key: a capital letter, then capitals, digits or underscores (Jira's rule).
_PROJECT_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]{1,9}$")


@dataclass(frozen=True, kw_only=True)
class JiraSettings:
    #: The site, ``https://acme.atlassian.net``.
    url: str = ""
    #: The project's key (PROJ), upper case as Jira shows it.
    project: str = ""
    #: The Atlassian account the API token belongs to (Basic auth's user).
    email: str = ""
    estimate_field: str = DEFAULT_ESTIMATE_FIELD
    #: Ralph's state -> the project's status, where they are not named alike.
    statuses: Mapping[str, str] = field(default_factory=dict)

    def require(self, source: str) -> None:
        """ConfigError naming what a Jira tracker still needs."""
        for key, what in (
            ("project", "the project's key as in PROJ-12"),
            ("url", "the site, https://YOURS.atlassian.net"),
            ("email", "the email of the API token's account"),
        ):
            if not getattr(self, key):
                raise ConfigError(
                    f"{source}: the jira tracker needs jira.{key} (or {JIRA_ENV[key]}), {what}"
                )


def jira_token(env: Mapping[str, str]) -> str:
    """The API token from the environment; ConfigError saying where to put one if unset."""
    for variable in JIRA_TOKEN_VARIABLES:
        if value := env_value(env, variable):
            return value
    raise ConfigError(
        "no Jira API token: set RALPH_JIRA_TOKEN (or JIRA_API_TOKEN) to a token made at "
        "https://id.atlassian.com/manage-profile/security/api-tokens"
    )


def parse_jira_settings(data: Any, source: str, env: Mapping[str, str]) -> JiraSettings:
    if isinstance(data, dict) and (secret := next((k for k in _SECRET_KEYS if k in data), None)):
        raise ConfigError(
            f"{source}: jira.{secret} is refused: an API token in ralph.toml ends up in git; "
            "remove it and set RALPH_JIRA_TOKEN in the environment instead"
        )
    table = section_table(data, source, "jira", _KEYS)
    values: dict[str, str] = {}
    for key, variable in JIRA_ENV.items():
        from_env = env_value(env, variable)
        raw = from_env or table.get(key)
        where = variable if from_env else f"{source}: jira.{key}"
        if raw is None or raw == "":
            continue
        if not isinstance(raw, str):
            raise ConfigError(f"{where}: {raw!r} is not valid; expected a string")
        if key == "project":
            if not _PROJECT_KEY.match(raw):
                raise ConfigError(
                    f"{where}: {raw!r} is not a project key; use the prefix of the project's "
                    "issue keys (PROJ for PROJ-12)"
                )
            raw = raw.upper()
        elif key == "url":
            raw = _site_url(raw, where)
        elif key == "email" and "@" not in raw:
            raise ConfigError(f"{where}: {raw!r} is not an email address")
        values[key] = raw
    return JiraSettings(
        url=values.get("url", ""),
        project=values.get("project", ""),
        email=values.get("email", ""),
        estimate_field=values.get("estimate_field", DEFAULT_ESTIMATE_FIELD),
        statuses=_statuses(table.get("statuses"), source),
    )


def _site_url(raw: str, where: str) -> str:
    """The site's URL (``service_url``: https, no user or password in it)."""
    return service_url(
        raw,
        where,
        example="https://YOURS.atlassian.net",
        credentials="set the email as jira.email, the token in RALPH_JIRA_TOKEN",
    )


def _statuses(data: Any, source: str) -> dict[str, str]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: [jira.statuses] must be a table of state = status")
    states = [s.value for s in WorkflowState]
    found: dict[str, str] = {}
    for state, status in data.items():
        if state not in states:
            raise ConfigError(
                f"{source}: jira.statuses names {state!r}, not one of Ralph's states "
                f"({', '.join(states)})"
            )
        if not isinstance(status, str) or not status.strip():
            raise ConfigError(
                f"{source}: jira.statuses.{state!r} must be the name of a status of the project"
            )
        if status != state:
            found[state] = status.strip()
    return found


def jira_table(settings: JiraSettings) -> str:
    """The ``[jira]`` table as ``ralph init`` writes it, with every state's status for
    the person to edit (a status of another name is the one line to change)."""
    lines = [
        "# The Jira project (the API token comes from RALPH_JIRA_TOKEN or JIRA_API_TOKEN;",
        "# never from this file).",
        "[jira]",
        f"url = {_toml(settings.url)}",
        f"project = {_toml(settings.project)}",
        f"email = {_toml(settings.email)}",
        f"estimate_field = {_toml(settings.estimate_field)}",
        "# Ralph's workflow states, each moved to this status of the project by a transition.",
        "[jira.statuses]",
    ]
    for state in WorkflowState:
        status = settings.statuses.get(state.value, state.value)
        lines.append(f"{_toml(state.value)} = {_toml(status)}")
    return "\n".join(lines) + "\n"


def _toml(text: str) -> str:
    """``text`` as a TOML basic string (quotes, backslashes and controls escaped)."""
    return json.dumps(text, ensure_ascii=False)
