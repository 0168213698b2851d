"""Project settings: ``ralph.toml`` with ``RALPH_*`` overrides, parsed and checked.
Pure settings: opening what they name is :mod:`ralph.project`'s work."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.config._agent import AgentSettings, BestOf, PhaseSettings
    from ralph.config._config import (
        CONFIG_FILE,
        MAX_POLL_SECONDS,
        MAX_STUCK_HOURS,
        Config,
        find_config,
        load_config,
        render_config,
    )
    from ralph.config._debug import DebugSettings
    from ralph.config._github import (
        TOKEN_VARIABLES,
        GitHubSettings,
        env_value,
        parse_github_settings,
    )
    from ralph.config._gitlab import (
        GITLAB_TOKEN_VARIABLES,
        GitLabSettings,
        gitlab_token,
        parse_gitlab_settings,
    )
    from ralph.config._hooks import HOOK_NAMES, HookSettings
    from ralph.config._jira import (
        JIRA_ENV,
        JIRA_TOKEN_VARIABLES,
        JiraSettings,
        jira_token,
        parse_jira_settings,
    )
    from ralph.config._linear import (
        LINEAR_TOKEN_VARIABLES,
        LinearSettings,
        linear_token,
        parse_linear_settings,
    )
    from ralph.config._merge import MergeWaitSettings
    from ralph.config._notify import NotifySettings, webhook_problem
    from ralph.config._numbers import MIN_POLL_SECONDS, MIN_USD
    from ralph.config._prices import ModelPrice, parse_prices
    from ralph.config._reference import configuration_reference
    from ralph.config._services import SERVICES, Service
    from ralph.config._test_command import FoundTestCommand, detect_test_command, untested_warning
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "CONFIG_FILE",
    "GITLAB_TOKEN_VARIABLES",
    "HOOK_NAMES",
    "JIRA_ENV",
    "JIRA_TOKEN_VARIABLES",
    "LINEAR_TOKEN_VARIABLES",
    "MAX_POLL_SECONDS",
    "MAX_STUCK_HOURS",
    "MIN_POLL_SECONDS",
    "MIN_USD",
    "SERVICES",
    "TOKEN_VARIABLES",
    "AgentSettings",
    "BestOf",
    "Config",
    "DebugSettings",
    "FoundTestCommand",
    "GitHubSettings",
    "GitLabSettings",
    "HookSettings",
    "JiraSettings",
    "LinearSettings",
    "MergeWaitSettings",
    "ModelPrice",
    "NotifySettings",
    "PhaseSettings",
    "Service",
    "configuration_reference",
    "detect_test_command",
    "env_value",
    "find_config",
    "gitlab_token",
    "jira_token",
    "linear_token",
    "load_config",
    "parse_github_settings",
    "parse_gitlab_settings",
    "parse_jira_settings",
    "parse_linear_settings",
    "parse_prices",
    "render_config",
    "untested_warning",
    "webhook_problem",
]
