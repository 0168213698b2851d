"""Choosing a runtime by name (``--agent``, or ``[agent] runtime`` in ralph.toml)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ralph.config import AgentSettings
from ralph.errors import ConfigError
from ralph.runtimes._runtime import AgentRuntime
from ralph.sandbox import should_confine

__all__ = ["RUNTIMES", "open_runtime"]

RUNTIMES = ("claude", "command", "scripted")

#: Ways Claude Code can authenticate without a login on this machine.
_CLAUDE_CREDENTIALS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN")


def _claude_logged_in(environ: Mapping[str, str]) -> bool:
    config_dir = environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    return (Path(config_dir) / ".credentials.json").is_file()


def open_runtime(
    name: str,
    settings: AgentSettings | None = None,
    *,
    tools_server: Any = None,
    environ: Mapping[str, str] | None = None,
    allow_unsandboxed: bool = False,
) -> AgentRuntime:
    """The runtime called ``name``, configured from ``settings``. ``tools_server`` is the
    read-only MCP server agents get in-process (Claude). ConfigError, saying what to
    install or set, when the runtime cannot work here, or cannot be sandboxed here and
    ``allow_unsandboxed`` (ralph.toml) is false."""
    settings = settings or AgentSettings()
    environ = os.environ if environ is None else environ
    if name == "scripted":
        # In-process simulated agents: they run no agent code, so nothing to confine.
        from ralph.runtimes.scripted import ScriptedRuntime

        return ScriptedRuntime()
    if name == "claude":
        try:
            import claude_agent_sdk  # noqa: F401
        except ImportError:
            raise ConfigError(
                "the claude agent needs claude-agent-sdk: pip install 'ralph[claude]'"
            ) from None
        from ralph.runtimes.claude import ClaudeRuntime, login_command

        if not any(environ.get(v) for v in _CLAUDE_CREDENTIALS) and not _claude_logged_in(environ):
            raise ConfigError(
                "the claude agent needs an API key: set ANTHROPIC_API_KEY "
                f"(or log in once with `{login_command()}`)"
            )
        # Claude Code confines Bash with the same bubblewrap; without it, and only when
        # the person allowed that, it runs without its sandbox rather than not at all.
        confined = should_confine(allow_unsandboxed, "agents")
        return ClaudeRuntime(
            model=settings.model,
            permission_mode=settings.permission_mode,
            tools_server=tools_server,
            sandbox=confined,
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
            model=settings.model,
            sandbox=should_confine(allow_unsandboxed, "agents"),
        )
    raise ConfigError(f"unknown agent {name!r}; available in this version: {', '.join(RUNTIMES)}")
