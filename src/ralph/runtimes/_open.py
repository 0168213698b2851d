"""Choosing a runtime by name (``--agent``, or ``[agent] runtime`` / ``preset`` in
ralph.toml), and one per phase when ralph.toml chooses agents per phase or role."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ralph._agents import AGENT_NAMES, is_command_preset
from ralph._distribution import install_hint
from ralph._suggest import unknown_name
from ralph.config import AgentSettings, ModelPrice
from ralph.errors import ConfigError
from ralph.runtimes._by_phase import PhaseAgents
from ralph.runtimes._credentials import OFFLINE_HINT, agent_credentials
from ralph.runtimes._prices import Pricing
from ralph.runtimes._runtime import AgentRuntime
from ralph.sandbox import should_confine
from ralph.workflow import PHASE_SPECS

__all__ = ["open_agents", "open_runtime"]


def open_runtime(
    name: str,
    settings: AgentSettings | None = None,
    *,
    tools_server: Any = None,
    environ: Mapping[str, str] | None = None,
    allow_unsandboxed: bool = False,
    root: Path | None = None,
    sandbox_env: Sequence[str] = (),
    agent_hosts: Sequence[str] = (),
    prices: Mapping[str, ModelPrice] | None = None,
) -> AgentRuntime:
    """The runtime called ``name`` (one of ``AGENT_NAMES``), configured from ``settings``.
    ``tools_server`` is the read-only MCP server agents get in-process (Claude);
    ``root`` the project, whose ``node_modules/.bin`` may hold an agent CLI. ConfigError,
    saying what to install or set, when the runtime cannot work here, or cannot be
    sandboxed here and ``allow_unsandboxed`` (ralph.toml) is false. ``sandbox_env``:
    the person's variables agents get by name; ``agent_hosts``: the hosts agent CLIs
    may reach besides their model's API (ralph.toml); ``prices``: ralph.toml's
    ``[prices]``, for a CLI that reports tokens but no cost."""
    settings = settings or AgentSettings()
    environ = os.environ if environ is None else environ
    # [agent] model is a model of [agent]'s agent; phases name theirs in their briefs.
    model = settings.model if settings.agent == name else ""
    if name == "scripted":
        # In-process simulated agents: they run no agent code, so nothing to confine.
        from ralph.runtimes.scripted import ScriptedRuntime

        return ScriptedRuntime()
    if name == "claude":
        try:
            import claude_agent_sdk  # noqa: F401
        except ImportError:
            raise ConfigError(
                f"the claude agent needs claude-agent-sdk: {install_hint('claude')}"
            ) from None
        from ralph.runtimes.claude import ClaudeRuntime

        credentials = agent_credentials("claude", environ)
        if credentials.ready is False:
            raise ConfigError(
                f"the claude agent needs an API key or a login: {credentials.fix}; {OFFLINE_HINT}"
            )
        # Claude Code confines Bash with the same bubblewrap; without it, and only when
        # the person allowed that, it runs without its sandbox rather than not at all.
        confined = should_confine(allow_unsandboxed, "agents")
        return ClaudeRuntime(
            model=model,
            permission_mode=settings.permission_mode,
            tools_server=tools_server,
            sandbox=confined,
            sandbox_env=sandbox_env,
        )
    if is_command_preset(name):
        from ralph.runtimes.command import CommandRuntime

        return CommandRuntime.preset(
            name,
            model=model,
            environ=None if environ is os.environ else environ,
            sandbox=should_confine(allow_unsandboxed, "agents"),
            sandbox_env=sandbox_env,
            hosts=agent_hosts,
            roots=() if root is None else (root,),
            pricing=Pricing(dict(prices or {})),
        )
    if name == "command":
        from ralph.runtimes.command import CommandRuntime

        if not settings.command:
            raise ConfigError(
                'the command agent needs a template: set [agent] command = "..." in '
                "ralph.toml (see the comments there)"
            )
        return CommandRuntime(
            settings.command,
            output=settings.format,
            model=model,
            sandbox=should_confine(allow_unsandboxed, "agents"),
            sandbox_env=sandbox_env,
            hosts=agent_hosts,
            pricing=Pricing(dict(prices or {})),
        )
    raise ConfigError(unknown_name("agent", name, AGENT_NAMES, "available in this version"))


def open_agents(
    settings: AgentSettings,
    *,
    tools_server: Any = None,
    environ: Mapping[str, str] | None = None,
    allow_unsandboxed: bool = False,
    root: Path | None = None,
    sandbox_env: Sequence[str] = (),
    agent_hosts: Sequence[str] = (),
    prices: Mapping[str, ModelPrice] | None = None,
) -> AgentRuntime:
    """The runtime ralph.toml's ``[agent]`` names for every phase; when its phase or
    role tables choose other agents, one that runs each phase on its own
    (``PhaseAgents``). Each agent is opened once, so a missing key or CLI is named
    before any phase runs."""
    opened: dict[str, AgentRuntime] = {}

    def runtime(name: str) -> AgentRuntime:
        if name not in opened:
            opened[name] = open_runtime(
                name,
                settings,
                tools_server=tools_server if name == "claude" else None,
                environ=environ,
                allow_unsandboxed=allow_unsandboxed,
                root=root,
                sandbox_env=sandbox_env,
                agent_hosts=agent_hosts,
                prices=prices,
            )
        return opened[name]

    chosen = {s.name: settings.agent_for(s.name) for s in PHASE_SPECS if s.uses_agent}
    names = list(dict.fromkeys(chosen.values()))
    # The agents of best-of attempts and fallbacks (``codex`` of ``codex:o3``), opened
    # up front too.
    specs = [
        *(spec for b in settings.best_of.values() for spec in b.agents),
        *(spec for phase in chosen for spec in settings.fallbacks_for(phase)),
    ]
    attempts = list(dict.fromkeys(spec.partition(":")[0] for spec in specs))
    if names == [settings.agent] and set(attempts) <= {settings.agent}:
        return runtime(settings.agent)
    # [agent]'s own agent, unless every phase chose another (then it need not work here).
    default = runtime(settings.agent if settings.agent in names else names[0])
    return PhaseAgents(
        default,
        {phase: runtime(name) for phase, name in chosen.items()},
        {name: runtime(name) for name in attempts},
    )
