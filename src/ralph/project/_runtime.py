"""From the agent settings to the agent runtime that runs a project's phases: the one
``--agent`` names for every phase, or ralph.toml's, one per phase where its tables
choose so."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ralph.config import Config
from ralph.runtimes import AgentRuntime, open_agents, open_runtime
from ralph.workflow import PHASE_SPECS

__all__ = ["open_agent_runtime"]


def open_agent_runtime(
    config: Config, agent: str | None = None, *, tools: Callable[[], Any] | None = None
) -> AgentRuntime:
    """The runtime ``agent`` names for every phase, or ralph.toml's. ``tools`` makes the
    read-only tracker tools server (``ralph.mcp``, a layer above this one) for agents
    that take one in-process (Claude); it is called only when such an agent may run."""
    settings = config.agent
    phases = [spec.name for spec in PHASE_SPECS if not spec.by_person]
    chosen = (
        {agent}
        if agent is not None
        else {
            *(settings.agent_for(p) for p in phases),
            *(spec.partition(":")[0] for p in phases for spec in settings.fallbacks_for(p)),
        }
    )
    server = tools() if tools is not None and "claude" in chosen else None
    if agent is not None:
        return open_runtime(
            agent,
            settings,
            tools_server=server,
            allow_unsandboxed=config.allow_unsandboxed,
            root=config.root,
            sandbox_env=config.sandbox_env,
            agent_hosts=config.agent_hosts,
            prices=config.prices,
        )
    return open_agents(
        settings,
        tools_server=server,
        allow_unsandboxed=config.allow_unsandboxed,
        root=config.root,
        sandbox_env=config.sandbox_env,
        agent_hosts=config.agent_hosts,
        prices=config.prices,
    )
