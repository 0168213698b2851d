"""The runtime of a phase that runs no agent (a pull request opened, a merge): nothing
to open, so no key or login is asked for."""

from __future__ import annotations

from ralph.errors import ConfigError
from ralph.runtimes._model import AgentBrief, AgentResult
from ralph.runtimes._runtime import AgentRuntime

__all__ = ["NoAgent"]


class NoAgent(AgentRuntime):
    name = "none"
    description = ""

    def run(self, brief: AgentBrief) -> AgentResult:
        # Only a phase without an agent is given this runtime; one that asks is a bug.
        raise ConfigError(f"{brief.phase} runs an agent, and none was opened for it")
