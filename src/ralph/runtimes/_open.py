"""Choosing a runtime by name (``--agent``)."""

from __future__ import annotations

from ralph.errors import ConfigError
from ralph.runtimes._runtime import AgentRuntime

__all__ = ["RUNTIMES", "open_runtime"]

RUNTIMES = ("scripted",)


def open_runtime(name: str) -> AgentRuntime:
    if name == "scripted":
        from ralph.runtimes.scripted import ScriptedRuntime

        return ScriptedRuntime()
    raise ConfigError(f"unknown agent {name!r}; available in this version: {', '.join(RUNTIMES)}")
