"""The ``[github]`` table of ralph.toml, and the tokens, which only ever come from the
environment (a token in a file ends up in git).

    [github]
    owner = "acme"               # RALPH_GH_OWNER
    repo = "shop"                # RALPH_GH_REPO
    project = 3                  # RALPH_GH_PROJECT_NUMBER
    project_owner = ""           # RALPH_GH_PROJECT_OWNER (default: owner)
    api_url = ""                 # RALPH_GH_API_URL (GitHub Enterprise Server)
    mutation_interval = 1.0      # seconds between mutation starts (GitHub asks for >= 1)

Tokens: ``RALPH_GH_TOKEN`` (or the original's ``RALPH_GH_REPO_TOKEN`` /
``RALPH_HERO_GITHUB_TOKEN``) and an optional ``RALPH_GH_PROJECT_TOKEN`` for the board.
As in the original, a value that starts with ``${`` is an unexpanded placeholder and
counts as unset.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from ralph.config._numbers import setting_number
from ralph.config._tables import section_table
from ralph.errors import ConfigError

#: The longest pause between two mutations: GitHub asks for a second; an hour is a typo.
MAX_MUTATION_INTERVAL = 3600
#: GraphQL's Int, which a project number is.
MAX_PROJECT = 2**31 - 1
#: GitHub's GraphQL endpoint (``ralph.github`` has the same; settings import no client).
DEFAULT_API_URL = "https://api.github.com/graphql"

__all__ = [
    "TOKEN_VARIABLES",
    "GitHubSettings",
    "env_value",
    "github_table",
    "parse_github_settings",
]

TOKEN_VARIABLES = ("RALPH_GH_TOKEN", "RALPH_GH_REPO_TOKEN", "RALPH_HERO_GITHUB_TOKEN")
_ENV = {
    "owner": "RALPH_GH_OWNER",
    "repo": "RALPH_GH_REPO",
    "project": "RALPH_GH_PROJECT_NUMBER",
    "project_owner": "RALPH_GH_PROJECT_OWNER",
    "api_url": "RALPH_GH_API_URL",
    "mutation_interval": "RALPH_GH_MUTATION_INTERVAL",
}


@dataclass(frozen=True, kw_only=True)
class GitHubSettings:
    owner: str = ""
    repo: str = ""
    project: int = 0
    project_owner: str = ""
    api_url: str = ""
    mutation_interval: float = 1.0

    @property
    def board_owner(self) -> str:
        return self.project_owner or self.owner

    @property
    def url(self) -> str:
        return self.api_url or DEFAULT_API_URL

    @property
    def web_url(self) -> str:
        """Where people browse it: github.com, or the Enterprise Server's own host
        (its API lives under ``/api``)."""
        parts = urlsplit(self.url)
        if parts.netloc in ("api.github.com", ""):
            return "https://github.com"
        return f"{parts.scheme}://{parts.netloc}"

    def require(self, source: str, *, board: bool = True) -> None:
        """ConfigError naming the first missing setting GitHub needs (as the tracker, the
        code host or both); as the code host alone (``board=False``) it needs no board."""
        for name in ("owner", "repo", "project") if board else ("owner", "repo"):
            if not getattr(self, name):
                raise ConfigError(
                    f"{source}: GitHub (tracker or code_host) needs github.{name} "
                    f"(or {_ENV[name]}); `ralph init --github OWNER/REPO` writes it"
                )


def env_value(env: Mapping[str, str], name: str) -> str:
    """The variable's value; unset, empty and unexpanded ``${...}`` placeholders are ""."""
    value = env.get(name, "").strip()
    return "" if value.startswith("${") else value


def parse_github_settings(data: Any, source: str, env: Mapping[str, str]) -> GitHubSettings:
    table = section_table(data, source, "github", _ENV)
    settings = GitHubSettings()
    for key, variable in _ENV.items():
        raw = env_value(env, variable) or table.get(key)
        where = variable if env_value(env, variable) else f"{source}: github.{key}"
        if raw is None or raw == "":
            continue
        if key == "mutation_interval":
            seconds = setting_number(raw, f"{where} (seconds)", maximum=MAX_MUTATION_INTERVAL)
            settings = replace(settings, mutation_interval=seconds)
        elif key == "project":
            try:
                number = int(raw)
            except (TypeError, ValueError):
                number = 0
            if not 0 < number <= MAX_PROJECT:
                raise ConfigError(
                    f"{where}: {raw!r} is not a project number (1, 2, ... at most {MAX_PROJECT})"
                )
            settings = replace(settings, project=number)
        else:
            if not isinstance(raw, str):
                raise ConfigError(f"{where}: {raw!r} is not valid; expected a string")
            if key == "api_url" and not raw.startswith(("https://", "http://")):
                raise ConfigError(
                    f"{where}: {raw!r} is not a URL; use https://HOST/api/graphql "
                    "(GitHub Enterprise Server)"
                )
            settings = replace(settings, **{key: str(raw)})  # type: ignore[arg-type]
    return settings


def github_table(settings: GitHubSettings, tracker_title: str) -> str:
    """The ``[github]`` table as ``ralph init`` writes it: the board when GitHub is the
    tracker (``tracker_title`` "GitHub"), else the repository pull requests go to."""
    if tracker_title != "GitHub":
        return f"""\
# The GitHub repository pull requests go to (the token comes from RALPH_GH_TOKEN, never
# from this file); the issues stay on {tracker_title}. api_url for GitHub Enterprise Server.
[github]
owner = "{settings.owner}"
repo = "{settings.repo}"
# Seconds between mutation starts; GitHub asks for at least 1.
mutation_interval = 1.0
"""
    project_owner = (
        f'project_owner = "{settings.project_owner}"\n' if settings.project_owner else ""
    )
    return f"""\
# The GitHub board (tokens come from RALPH_GH_TOKEN, and RALPH_GH_PROJECT_TOKEN if the
# board needs another; never from this file). api_url for GitHub Enterprise Server.
[github]
owner = "{settings.owner}"
repo = "{settings.repo}"
project = {settings.project}
{project_owner}# Seconds between mutation starts; GitHub asks for at least 1.
mutation_interval = 1.0
"""
