"""The ``[gitlab]`` table of ralph.toml, and the access token, which only ever comes from
the environment (a token in a file ends up in git).

    [gitlab]
    project = "acme/app"         # RALPH_GITLAB_PROJECT: the project's path, group/project
    url = ""                     # RALPH_GITLAB_URL: a self-managed GitLab (default gitlab.com)

The token: ``RALPH_GITLAB_TOKEN``, else ``GITLAB_TOKEN`` (the name GitLab's own tools
read), a personal or project access token with the ``api`` scope. As for GitHub, a value
that starts with ``${`` is an unexpanded placeholder and counts as unset.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ralph.config._github import env_value
from ralph.config._tables import section_table
from ralph.config._urls import service_url
from ralph.errors import ConfigError

__all__ = [
    "DEFAULT_GITLAB_URL",
    "GITLAB_ENV",
    "GITLAB_TOKEN_VARIABLES",
    "GitLabSettings",
    "gitlab_table",
    "gitlab_token",
    "parse_gitlab_settings",
]

#: GitLab.com (``ralph.gitlab`` has the same; settings import no client).
DEFAULT_GITLAB_URL = "https://gitlab.com"
GITLAB_TOKEN_VARIABLES = ("RALPH_GITLAB_TOKEN", "GITLAB_TOKEN")
GITLAB_ENV = {"project": "RALPH_GITLAB_PROJECT", "url": "RALPH_GITLAB_URL"}
#: Keys a person might put the token under: refused with the variable to use instead.
_SECRET_KEYS = ("token", "private_token", "access_token", "api_key")
#: group[/subgroup...]/project, GitLab's path characters.
_PROJECT = re.compile(r"^[\w.-]+(?:/[\w.-]+)+$")


@dataclass(frozen=True, kw_only=True)
class GitLabSettings:
    #: The project's path with its namespace: ``group/project`` (subgroups allowed).
    project: str = ""
    #: The instance's URL (``https://gitlab.example.com``); empty: gitlab.com.
    url: str = ""

    @property
    def base_url(self) -> str:
        return (self.url or DEFAULT_GITLAB_URL).rstrip("/")

    def require(self, source: str) -> None:
        """ConfigError when the project a GitLab tracker or code host needs is not named."""
        if not self.project:
            raise ConfigError(
                f"{source}: GitLab needs gitlab.project (or RALPH_GITLAB_PROJECT), the "
                "project's path as in group/project"
            )


def gitlab_token(env: Mapping[str, str]) -> str:
    """The access token from the environment; ConfigError saying where to put one."""
    for variable in GITLAB_TOKEN_VARIABLES:
        if value := env_value(env, variable):
            return value
    raise ConfigError(
        "no GitLab token: set RALPH_GITLAB_TOKEN (or GITLAB_TOKEN) to a personal or project "
        "access token with the api scope (GitLab: Preferences → Access tokens)"
    )


def parse_gitlab_settings(data: Any, source: str, env: Mapping[str, str]) -> GitLabSettings:
    if isinstance(data, dict) and (secret := next((k for k in _SECRET_KEYS if k in data), None)):
        raise ConfigError(
            f"{source}: gitlab.{secret} is refused: a token in ralph.toml ends up in git; "
            "remove it and set RALPH_GITLAB_TOKEN in the environment instead"
        )
    table = section_table(data, source, "gitlab", GITLAB_ENV)
    settings = GitLabSettings()
    for key, variable in GITLAB_ENV.items():
        from_env = env_value(env, variable)
        raw = from_env or table.get(key)
        where = variable if from_env else f"{source}: gitlab.{key}"
        if raw is None or raw == "":
            continue
        if not isinstance(raw, str):
            raise ConfigError(f"{where}: {raw!r} is not valid; expected a string")
        if key == "project":
            raw = raw.strip().strip("/")
            if not _PROJECT.match(raw):
                raise ConfigError(
                    f"{where}: {raw!r} is not a project path; use group/project as in the "
                    "project's URL"
                )
        else:
            raw = service_url(
                raw,
                where,
                example="the instance's address, https://gitlab.example.com",
                credentials="set the token in RALPH_GITLAB_TOKEN",
            )
            if "/api/" in raw + "/":
                raise ConfigError(
                    f"{where}: {raw!r} is not a GitLab URL; use the instance's address, "
                    "https://gitlab.example.com"
                )
        settings = replace(settings, **{key: raw})
    return settings


def gitlab_table(settings: GitLabSettings) -> str:
    """The ``[gitlab]`` table as ``ralph init`` would write it."""
    url = f"url = {json.dumps(settings.url)}\n" if settings.url else ""
    return (
        "# The GitLab project (the token comes from RALPH_GITLAB_TOKEN or GITLAB_TOKEN;\n"
        "# never from this file).\n"
        "[gitlab]\n"
        f"project = {json.dumps(settings.project)}\n"
        f"{url}"
    )
