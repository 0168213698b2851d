"""The ``[debug]`` table of ralph.toml: whether Ralph appends its debug events (MCP tool
calls, GraphQL requests, agent runs, phase refusals, hook decisions) to
``.ralph/logs/``.

    [debug]
    enabled = false     # RALPH_DEBUG=1 turns it on, RALPH_DEBUG=0 off
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ralph.config._github import env_value
from ralph.config._tables import section_table
from ralph.errors import ConfigError

__all__ = ["DEBUG_ENV", "DebugSettings", "parse_debug_settings"]

DEBUG_ENV = {"enabled": "RALPH_DEBUG"}
_ON = ("1", "true", "yes", "on")
_OFF = ("0", "false", "no", "off")


@dataclass(frozen=True, kw_only=True)
class DebugSettings:
    enabled: bool = False


def parse_debug_settings(data: Any, source: str, env: Mapping[str, str]) -> DebugSettings:
    table = section_table(data, source, "debug", DEBUG_ENV)
    from_env = env_value(env, DEBUG_ENV["enabled"])
    if from_env:
        if from_env.lower() not in _ON + _OFF:
            raise ConfigError(
                f"RALPH_DEBUG: {from_env!r} is not valid; use 1 (or true) to turn the debug "
                "log on, 0 (or false) to turn it off"
            )
        return DebugSettings(enabled=from_env.lower() in _ON)
    raw = table.get("enabled", False)
    if not isinstance(raw, bool):
        raise ConfigError(f"{source}: debug.enabled: {raw!r} is not valid; expected true or false")
    return DebugSettings(enabled=raw)
