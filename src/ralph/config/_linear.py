"""The ``[linear]`` table of ralph.toml, and the API key, which only ever comes from the
environment (a key in a file ends up in git).

    [linear]
    team = "ENG"                 # RALPH_LINEAR_TEAM: the team's key, as in ENG-12
    api_url = ""                 # RALPH_LINEAR_API_URL (default: Linear's)

The key: ``RALPH_LINEAR_TOKEN``, else ``LINEAR_API_KEY`` (the name Linear's own tools
read). As for GitHub, a value that starts with ``${`` is an unexpanded placeholder and
counts as unset.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ralph.config._github import env_value
from ralph.config._tables import section_table
from ralph.errors import ConfigError

__all__ = [
    "LINEAR_ENV",
    "LINEAR_TOKEN_VARIABLES",
    "LinearSettings",
    "linear_table",
    "linear_token",
    "parse_linear_settings",
]

#: Linear's GraphQL endpoint (``ralph.linear`` has the same; settings import no client).
DEFAULT_API_URL = "https://api.linear.app/graphql"
LINEAR_TOKEN_VARIABLES = ("RALPH_LINEAR_TOKEN", "LINEAR_API_KEY")
LINEAR_ENV = {"team": "RALPH_LINEAR_TEAM", "api_url": "RALPH_LINEAR_API_URL"}
#: Keys a person might put the API key under: refused with the variable to use instead.
_SECRET_KEYS = ("token", "api_key", "key")
#: A team key is the prefix of its issues' identifiers (ENG in ENG-12): no dash, no space.
_TEAM_KEY = re.compile(r"^[A-Za-z0-9_]{1,16}$")


@dataclass(frozen=True, kw_only=True)
class LinearSettings:
    #: The team's key (ENG), upper case as Linear shows it.
    team: str = ""
    api_url: str = ""

    @property
    def url(self) -> str:
        return self.api_url or DEFAULT_API_URL

    def require(self, source: str) -> None:
        """ConfigError when the team a Linear tracker needs is not named."""
        if not self.team:
            raise ConfigError(
                f"{source}: the linear tracker needs linear.team (or RALPH_LINEAR_TEAM), "
                "the team's key as in ENG-12"
            )


def linear_token(env: Mapping[str, str]) -> str:
    """The API key from the environment; ConfigError saying where to put one if unset."""
    for variable in LINEAR_TOKEN_VARIABLES:
        if value := env_value(env, variable):
            return value
    raise ConfigError(
        "no Linear API key: set RALPH_LINEAR_TOKEN (or LINEAR_API_KEY) to a personal API "
        "key (Linear: Settings → Security & access → Personal API keys)"
    )


def parse_linear_settings(data: Any, source: str, env: Mapping[str, str]) -> LinearSettings:
    if isinstance(data, dict) and (secret := next((k for k in _SECRET_KEYS if k in data), None)):
        raise ConfigError(
            f"{source}: linear.{secret} is refused: an API key in ralph.toml ends up in git; "
            "remove it and set RALPH_LINEAR_TOKEN in the environment instead"
        )
    table = section_table(data, source, "linear", LINEAR_ENV)
    settings = LinearSettings()
    for key, variable in LINEAR_ENV.items():
        from_env = env_value(env, variable)
        raw = from_env or table.get(key)
        where = variable if from_env else f"{source}: linear.{key}"
        if raw is None or raw == "":
            continue
        if not isinstance(raw, str):
            raise ConfigError(f"{where}: {raw!r} is not valid; expected a string")
        if key == "team":
            if not _TEAM_KEY.match(raw):
                raise ConfigError(
                    f"{where}: {raw!r} is not a team key; use the prefix of the team's "
                    "issue identifiers (ENG for ENG-12)"
                )
            raw = raw.upper()
        elif not raw.startswith(("https://", "http://")):
            raise ConfigError(f"{where}: {raw!r} is not a URL; use https://HOST/graphql")
        settings = replace(settings, **{key: raw})
    return settings


def linear_table(settings: LinearSettings) -> str:
    """The ``[linear]`` table as ``ralph init`` would write it (for a Linear team)."""
    api_url = f'api_url = "{settings.api_url}"\n' if settings.api_url else ""
    return (
        "# The Linear team (the API key comes from RALPH_LINEAR_TOKEN or LINEAR_API_KEY;\n"
        "# never from this file).\n"
        "[linear]\n"
        f'team = "{settings.team}"\n'
        f"{api_url}"
    )
