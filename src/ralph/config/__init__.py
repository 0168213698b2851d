"""Project configuration: ``ralph.toml`` with ``RALPH_*`` overrides, and ``ralph init``."""

from __future__ import annotations

from ralph.config._agent import AgentSettings, PhaseSettings
from ralph.config._config import CONFIG_FILE, Config, find_config, load_config, render_config
from ralph.config._init import InitResult, init_project
from ralph.config._open import Project, open_project, open_tracker

__all__ = [
    "CONFIG_FILE",
    "AgentSettings",
    "Config",
    "InitResult",
    "PhaseSettings",
    "Project",
    "find_config",
    "init_project",
    "load_config",
    "open_project",
    "open_tracker",
    "render_config",
]
