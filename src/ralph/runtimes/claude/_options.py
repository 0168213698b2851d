"""The options one phase's Claude Code run gets, from the brief and the project's
settings. A plain mapping of ``ClaudeAgentOptions`` fields, so the choices can be read
and tested without the SDK."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ralph.runtimes._environment import agent_environment
from ralph.runtimes._model import AgentBrief
from ralph.runtimes._prompt import system_note
from ralph.runtimes.claude._helpers import TASK_TOOL, helper_definitions
from ralph.runtimes.claude._sandbox import git_environment, sandbox_settings

__all__ = ["READ_TOOLS", "TOOLS_SERVER", "WRITE_TOOLS", "option_values"]

#: The key Ralph's in-process tracker tools are registered under: Claude names them
#: ``mcp__ralph-hero__ralph_hero__get_issue`` and so on.
TOOLS_SERVER = "ralph-hero"
#: Tools that write files: their paths are checked against the working directory.
WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
#: Claude Code's auto memory off: a phase's run is one issue's brief and keeps nothing
#: for later sessions (nor should text from an issue carry into another's), and its
#: instructions were 3,200 of the 7,000 tokens of the system prompt of every request.
NO_AUTO_MEMORY = {"CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}
#: Tools that read files: refused outside the working directory too, as the person's
#: home holds their credentials (Bash's reads are the sandbox's to deny).
READ_TOOLS = ("Read", "Grep", "Glob", "NotebookRead", "LS")


def child_environment(
    environ: Mapping[str, str],
    extra: Mapping[str, str],
    *,
    sandbox: bool,
    passed: Sequence[str] = (),
) -> dict[str, str]:
    """What the SDK lays over the inherited environment. It always starts from
    ``os.environ``, so every variable an agent is not given is blanked here rather than
    left out."""
    given = agent_environment(environ, passed)
    env = {name: "" for name in environ if name not in given}
    # What the allow-list sets of its own (where Python keeps bytecode) is laid over too.
    env.update({name: value for name, value in given.items() if environ.get(name) != value})
    env.update(extra)
    if sandbox:
        env["IS_SANDBOX"] = "1"
    return env


def _note(brief: AgentBrief) -> str:
    # Project settings are not loaded (below), and with them goes CLAUDE.md: it is
    # pointed at rather than pasted, so text an agent may have changed stays a file.
    conventions = (brief.workdir / "CLAUDE.md").is_file()
    tail = (
        " The project's conventions are in CLAUDE.md there: read it first." if conventions else ""
    )
    return system_note(brief) + tail


def option_values(
    brief: AgentBrief,
    *,
    permission_mode: str = "dontAsk",
    default_model: str = "",
    session_id: str,
    environ: Mapping[str, str] | None = None,
    extra_env: Mapping[str, str] | None = None,
    passed_env: Sequence[str] = (),
    tracker_tools: Sequence[str] = (),
    server_tools: Sequence[str] = (),
    cli_path: str | Path | None = None,
    sandbox: bool = True,
) -> dict[str, Any]:
    """``sandbox``: run Bash in Claude Code's own sandbox (False only when a person
    allowed unsandboxed agents). ``tracker_tools``: the tracker server's tools offered;
    the rest of ``server_tools`` (all it has) are hidden, as each tool's definition
    rides along with every request."""
    environ = os.environ if environ is None else environ
    # The sandbox confines Bash only: a run without it needs none.
    sandbox = sandbox and "Bash" in brief.tools
    # Sandboxed, Bash is approved by the sandbox alone: were it not running, every
    # command would be denied rather than run unconfined.
    allowed = [tool for tool in brief.tools if not (sandbox and tool == "Bash")]
    tools = list(brief.tools)
    if brief.helpers:  # the tool that starts them, offered only with them
        tools.append(TASK_TOOL)
        allowed.append(TASK_TOOL)
    if tracker_tools:
        allowed.append(f"mcp__{TOOLS_SERVER}")
    hidden = [f"mcp__{TOOLS_SERVER}__{n}" for n in server_tools if n not in tracker_tools]
    home = Path((extra_env or {}).get("HOME") or environ.get("HOME") or Path.home())
    git_env = git_environment(brief.workdir, home) if sandbox else {}
    values: dict[str, Any] = {
        # An empty system prompt is the SDK's default; phases want Claude Code's own.
        "system_prompt": {"type": "preset", "preset": "claude_code", "append": _note(brief)},
        # ``tools`` is the built-in set the model sees; ``allowed_tools`` are approved
        # without asking. Headless, anything else is denied.
        "tools": tools,
        "allowed_tools": allowed,
        "permission_mode": permission_mode,
        "max_turns": brief.limits.max_turns,
        "cwd": str(brief.workdir),
        "session_id": session_id,
        # No settings file: neither the person's nor the worktree's, where an agent may
        # have left hooks and MCP servers for the next session (they would run unconfined).
        "setting_sources": [],
        "env": child_environment(
            environ,
            {**NO_AUTO_MEMORY, **(extra_env or {}), **git_env},
            sandbox=permission_mode == "bypassPermissions" and os.geteuid() == 0,
            passed=passed_env,
        ),
    }
    if tracker_tools and hidden:
        values["disallowed_tools"] = hidden
    if sandbox:
        # Passed as settings, merged by the CLI: the SDK's ``sandbox`` type lacks the
        # filesystem and failIfUnavailable keys.
        path = ((extra_env or {}).get("PATH") or environ.get("PATH") or "").split(os.pathsep)
        settings = {"sandbox": sandbox_settings(brief.workdir, home, path)}
        values["settings"] = json.dumps(settings)
    if brief.limits.max_usd > 0:
        values["max_budget_usd"] = brief.limits.max_usd
    if brief.model or default_model:
        values["model"] = brief.model or default_model
    if brief.result_schema:
        values["output_format"] = {"type": "json_schema", "schema": dict(brief.result_schema)}
    if brief.helpers:
        values["agents"] = helper_definitions(brief.helpers)
    if cli_path is not None:
        values["cli_path"] = str(cli_path)
    return values
