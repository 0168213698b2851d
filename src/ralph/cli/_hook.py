"""``ralph hook``: the Claude Code hooks of the ralph-hero plugin and the hook context a
skill sets for them.

``ralph hook EVENT`` is normally answered by ``ralph.__main__`` before this command line
is loaded; the commands here are the same answer, for ``--help`` and ``python -m``-less
callers of ``ralph.cli.main``.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ralph.cli._console import Console
from ralph.cli._issue_ref import issue_argument
from ralph.cli._project import open_project_of
from ralph.errors import InvalidInput
from ralph.workflow import PHASE_SPECS, find_phase

if TYPE_CHECKING:
    from ralph.plugin import HookContext

__all__ = ["hook_app"]

hook_app = typer.Typer(
    name="hook",
    help="Claude Code hooks of the ralph-hero plugin: they gate a session only while one "
    "of its skills has set a hook context.",
    no_args_is_help=True,
)
context_app = typer.Typer(
    name="context",
    help="The hook context: which phase a skill runs on which issue (off when unset or expired).",
    no_args_is_help=True,
)
hook_app.add_typer(context_app)

_AGENT_PHASES = ", ".join(spec.name for spec in PHASE_SPECS if spec.uses_agent)


@hook_app.command("pre-tool-use")
def pre_tool_use_command() -> None:
    """PreToolUse: refuse a write outside the issue's worktree during implement, an
    incomplete research document or plan, a state change outside the phase's contract."""
    from ralph.plugin import run_hook

    raise typer.Exit(run_hook("pre-tool-use", sys.stdin, sys.stdout))


@hook_app.command("stop")
def stop_command() -> None:
    """Stop: refuse to stop while the skill's issue is left in its phase's lock state."""
    from ralph.plugin import run_hook

    raise typer.Exit(run_hook("stop", sys.stdin, sys.stdout))


def _project_root() -> Path:
    from ralph.config import find_config

    config = find_config(Path.cwd())
    return config.parent if config is not None else Path.cwd().resolve()


@context_app.command("set")
def context_set(
    ctx: typer.Context,
    phase: Annotated[str, typer.Argument(help=f"The skill's phase: {_AGENT_PHASES}.")],
    number: Annotated[int | None, issue_argument("The issue it works on.")] = None,
    minutes: Annotated[
        float,
        typer.Option("--minutes", min=1, max=24 * 60, help="After this long the gates stop."),
    ] = 180,
) -> None:
    """Turn the gates on for this project's Claude Code session (the one named by
    CLAUDE_CODE_SESSION_ID, else every session)."""
    from ralph.plugin import HookContext, set_context

    spec = find_phase(phase)
    if spec is None or not spec.uses_agent:
        raise InvalidInput(f"unknown phase {phase!r}; use one of {_AGENT_PHASES}")
    epic = None
    if number is not None:  # gates for an issue the tracker does not have guard nothing
        with open_project_of(ctx) as project:
            epic = project.tracker.get_issue(number).parent
    context = HookContext(
        phase=spec.name,
        issue=number,
        epic=epic,
        expires_at=time.time() + minutes * 60,
        session_id=os.environ.get("CLAUDE_CODE_SESSION_ID", ""),
    )
    set_context(_project_root(), context)
    Console().print(_describe(context))


@context_app.command("clear")
def context_clear() -> None:
    """Turn the gates off."""
    from ralph.plugin import clear_context

    cleared = clear_context(_project_root())
    Console().print("Hook context cleared." if cleared else "No hook context was set.")


@context_app.command("show")
def context_show() -> None:
    """The hook context in force, if any."""
    from ralph.plugin import find_context

    found = find_context(_project_root())
    if found is None or found.context.expires_at <= time.time():
        Console().print("No hook context: the gates are off.")
        return
    Console().print(_describe(found.context))


def _describe(context: HookContext) -> str:
    issue = f" #{context.issue}" if context.issue is not None else ""
    until = datetime.fromtimestamp(context.expires_at).strftime("%Y-%m-%d %H:%M")
    session = f", session {context.session_id}" if context.session_id else ""
    return f"Hook context: {context.phase}{issue} until {until}{session}."
