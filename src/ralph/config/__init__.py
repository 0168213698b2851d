"""Project configuration: ``ralph.toml`` with ``RALPH_*`` overrides, and ``ralph init``."""

from __future__ import annotations

from ralph.config._agent import AgentSettings, PhaseSettings
from ralph.config._config import CONFIG_FILE, Config, find_config, load_config, render_config
from ralph.config._github import GitHubSettings, github_client, github_tokens
from ralph.config._init import InitResult, init_project
from ralph.config._open import Project, github_tracker, open_project, open_tracker
from ralph.config._reference import configuration_reference
from ralph.config._test_command import FoundTestCommand, detect_test_command, untested_warning

__all__ = [
    "CONFIG_FILE",
    "AgentSettings",
    "Config",
    "FoundTestCommand",
    "GitHubSettings",
    "InitResult",
    "PhaseSettings",
    "Project",
    "configuration_reference",
    "detect_test_command",
    "find_config",
    "github_client",
    "github_tokens",
    "github_tracker",
    "init_project",
    "load_config",
    "open_project",
    "open_tracker",
    "render_config",
    "untested_warning",
]
