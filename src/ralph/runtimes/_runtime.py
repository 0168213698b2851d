"""The AgentRuntime interface: run one brief, return one result, never raise for
anything the agent did."""

from __future__ import annotations

import abc

from ralph.runtimes._model import AgentBrief, AgentResult

__all__ = ["AgentRuntime"]


class AgentRuntime(abc.ABC):
    #: The name ``--agent`` selects it by.
    name: str = ""
    #: How reports name the agents this runtime runs.
    description: str = ""

    def agent_for(self, phase: str) -> str:
        """The name of the agent that runs ``phase`` (``claude``, ``codex``...): the
        models ralph.toml names for it are its."""
        return self.name

    def describe(self, phase: str) -> str:
        """How reports name the agent of ``phase`` (runtimes with one agent per phase
        name each)."""
        return self.description

    def runs_agent(self, agent: str) -> bool:
        """Whether a brief naming ``agent`` (``AgentBrief.agent``: a best-of attempt's or
        a fallback's) runs on that agent here."""
        return agent == self.name

    def sandboxed(self, phase: str) -> bool:
        """Whether ``phase``'s agent can write only where its runs are let write (its
        working directory, its own state): the person's checkout is then out of its
        reach, and a change there while it ran was someone else's."""
        return False

    def agent_sandboxed(self, phase: str, agent: str) -> bool:
        """``sandboxed`` for a brief of ``phase`` that names ``agent`` (a best-of
        attempt's, a fallback's; "" for the phase's own)."""
        return self.sandboxed(phase)

    @abc.abstractmethod
    def run(self, brief: AgentBrief) -> AgentResult:
        """Run the agent on ``brief`` within its limits. Every outcome, including a
        timeout or a crash, is an AgentResult; exceptions are for broken setups only."""
