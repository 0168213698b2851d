"""A runtime per phase: ``[agent.phases.implement] preset = "codex"`` while research
stays on Claude. Every phase reaches its agent through one runtime, so the runner,
the agent slots and the orchestration need not know there are several."""

from __future__ import annotations

from collections.abc import Mapping

from ralph.runtimes._model import AgentBrief, AgentResult
from ralph.runtimes._runtime import AgentRuntime

__all__ = ["PhaseAgents"]


class PhaseAgents(AgentRuntime):
    """Runs each brief on its phase's runtime, or ``default``'s for a phase not named; a
    brief that names its agent (an attempt of best of N, a fallback) on that agent's, from
    ``named``."""

    name = "by-phase"

    def __init__(
        self,
        default: AgentRuntime,
        phases: Mapping[str, AgentRuntime],
        named: Mapping[str, AgentRuntime] | None = None,
    ) -> None:
        self.default = default
        self.phases = dict(phases)
        self.named = dict(named or {})
        others = {
            phase: runtime.description
            for phase, runtime in self.phases.items()
            if runtime is not default
        }
        self.description = "; ".join(
            [default.description, *(f"{phase}: {what}" for phase, what in others.items())]
        )

    def runtime_for(self, phase: str) -> AgentRuntime:
        return self.phases.get(phase, self.default)

    def agent_for(self, phase: str) -> str:
        return self.runtime_for(phase).agent_for(phase)

    def describe(self, phase: str) -> str:
        return self.runtime_for(phase).describe(phase)

    def runs_agent(self, agent: str) -> bool:
        return agent in self.named

    def sandboxed(self, phase: str) -> bool:
        return self.runtime_for(phase).sandboxed(phase)

    def agent_sandboxed(self, phase: str, agent: str) -> bool:
        if agent in self.named:
            return self.named[agent].sandboxed(phase)
        return self.sandboxed(phase)

    def run(self, brief: AgentBrief) -> AgentResult:
        if brief.agent and brief.agent in self.named:
            return self.named[brief.agent].run(brief)
        return self.runtime_for(brief.phase).run(brief)
