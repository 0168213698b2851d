"""The services a project can use as its tracker or code host, one record each: what
ralph.toml's settings need to know of them (its ``[NAME]`` table, what it must name as
the tracker or as the code host, what ``ralph init`` writes). ``config/_config.py`` loops
over ``SERVICES``; opening a service is ``ralph.project``'s record of it
(``project/_backends.py``). The local tracker and code host are built in: no table.

A new service is one entry in ``SERVICES`` (its settings in ``config/_NAME.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ralph.config._github import GitHubSettings, github_table, parse_github_settings
from ralph.config._gitlab import (
    GITLAB_ENV,
    GITLAB_TOKEN_VARIABLES,
    GitLabSettings,
    gitlab_table,
    parse_gitlab_settings,
)
from ralph.config._jira import (
    JIRA_ENV,
    JIRA_TOKEN_VARIABLES,
    JiraSettings,
    jira_table,
    parse_jira_settings,
)
from ralph.config._linear import (
    LINEAR_ENV,
    LINEAR_TOKEN_VARIABLES,
    LinearSettings,
    linear_table,
    parse_linear_settings,
)
from ralph.workflow import MergePolicy

__all__ = ["LOCAL", "SERVICES", "Service", "code_hosts", "service_of", "trackers"]

#: The tracker and code host in Ralph's own database and the project's git repository.
LOCAL = "local"


def _no_needs(settings: Any, source: str) -> None:
    """A service that needs nothing named in its table."""


@dataclass(frozen=True, kw_only=True)
class Service:
    """A tracker and/or code host as ralph.toml knows it."""

    #: Its kind in ralph.toml (``tracker = "NAME"``) and its table's name (``[NAME]``).
    name: str
    #: How people write its name ("GitHub").
    title: str
    #: The class its table parses into (frozen dataclass, defaults for every setting).
    settings: type
    #: ``parse(table or None, source, env)``: the table and its ``RALPH_*`` overrides.
    parse: Callable[[Any, str, Mapping[str, str]], Any]
    #: Whether it holds issues (``tracker``) and pull requests (``code_host``).
    tracker: bool = False
    code_host: bool = False
    #: ConfigError naming what the table lacks for it as the tracker / as the code host.
    tracker_needs: Callable[[Any, str], None] = _no_needs
    code_host_needs: Callable[[Any, str], None] = _no_needs
    #: ``render(settings, tracker_title)``: its table as ``ralph init`` writes it, beside
    #: the tracker titled so (its own title: it is the tracker).
    render: Callable[[Any, str], str] = lambda settings, tracker_title: ""
    #: The repository name issues are numbered under when ralph.toml's ``repo`` names
    #: none ("" : the root folder's name).
    repo_name: Callable[[Any], str] = lambda settings: ""
    #: The merge policy when it holds the pull requests and ralph.toml names none.
    merge_policy: MergePolicy = MergePolicy.CHECKS
    #: Its table's ``RALPH_*`` overrides (setting -> variable) and the variables its
    #: token is read from, with what the token is, for docs/configuration.md.
    variables: Mapping[str, str] = field(default_factory=dict)
    token_variables: tuple[str, ...] = ()
    token: str = ""
    #: What docs/configuration.md says of its table, and the settings it shows.
    about: str = ""
    example: Any = None


SERVICES: dict[str, Service] = {
    "github": Service(
        name="github",
        title="GitHub",
        settings=GitHubSettings,
        parse=parse_github_settings,
        tracker=True,
        code_host=True,
        tracker_needs=lambda s, source: s.require(source),
        code_host_needs=lambda s, source: s.require(source, board=False),
        render=github_table,
        repo_name=lambda s: str(s.repo),
        # Repositories on GitHub are reviewed: merge once a review approves.
        merge_policy=MergePolicy.APPROVAL,
    ),
    "linear": Service(
        name="linear",
        title="Linear",
        settings=LinearSettings,
        parse=parse_linear_settings,
        tracker=True,
        tracker_needs=lambda s, source: s.require(source),
        render=lambda s, tracker_title: linear_table(s),
        variables=LINEAR_ENV,
        token_variables=LINEAR_TOKEN_VARIABLES,
        token="the Linear API key",
        about="A `[linear]` table names a Linear team (its API key is read from the\n"
        "environment only; a key in the file is refused):",
        example=LinearSettings(team="ENG"),
    ),
    "jira": Service(
        name="jira",
        title="Jira",
        settings=JiraSettings,
        parse=parse_jira_settings,
        tracker=True,
        tracker_needs=lambda s, source: s.require(source),
        render=lambda s, tracker_title: jira_table(s),
        variables=JIRA_ENV,
        token_variables=JIRA_TOKEN_VARIABLES,
        token="the Jira API token",
        about="A `[jira]` table names a Jira Cloud project, the site and the API token's\n"
        "account (the token is read from the environment only), and the project status\n"
        "each of Ralph's states moves to:",
        example=JiraSettings(
            url="https://acme.atlassian.net", project="PROJ", email="you@acme.com"
        ),
    ),
    "gitlab": Service(
        name="gitlab",
        title="GitLab",
        settings=GitLabSettings,
        parse=parse_gitlab_settings,
        tracker=True,
        code_host=True,
        tracker_needs=lambda s, source: s.require(source),
        code_host_needs=lambda s, source: s.require(source),
        render=lambda s, tracker_title: gitlab_table(s),
        repo_name=lambda s: str(s.project).rsplit("/", 1)[-1],
        variables=GITLAB_ENV,
        token_variables=GITLAB_TOKEN_VARIABLES,
        token="the GitLab access token",
        about="A `[gitlab]` table names a GitLab project, on gitlab.com unless `url` names\n"
        "another instance (its token is read from the environment only):",
        example=GitLabSettings(project="acme/app"),
    ),
}


def trackers() -> tuple[str, ...]:
    """Every ``tracker`` ralph.toml may name."""
    return (LOCAL, *(s.name for s in SERVICES.values() if s.tracker))


def code_hosts() -> tuple[str, ...]:
    """Every ``code_host`` ralph.toml may name."""
    return (LOCAL, *(s.name for s in SERVICES.values() if s.code_host))


def service_of(settings: type) -> Service:
    """The service whose table parses into ``settings``."""
    return next(s for s in SERVICES.values() if s.settings is settings)
