"""``ralph hook EVENT``: read Claude Code's hook input on stdin, apply the gates of the
hook context (``ralph.hooks``) and answer as Claude Code expects: nothing to let the
call or the stop go ahead, a JSON refusal otherwise.

A hook never breaks a person's session: input it cannot read, a context file it cannot
parse or a tracker it cannot reach lets the session go on, with a warning shown to the
person. Without a context it reads one JSON object and looks for one file, nothing else.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ralph.plugin._context_file import find_context

if TYPE_CHECKING:
    from ralph.hooks import Decision

__all__ = ["HOOK_EVENTS", "run_hook"]

#: ``ralph hook`` subcommand -> Claude Code's event name.
HOOK_EVENTS: Mapping[str, str] = {"pre-tool-use": "PreToolUse", "stop": "Stop"}


def run_hook(
    event_name: str,
    stdin: TextIO,
    stdout: TextIO,
    *,
    environ: Mapping[str, str] | None = None,
    now: float | None = None,
) -> int:
    """Answer one hook call; the exit code is always 0 (a refusal is JSON on stdout)."""
    environ = os.environ if environ is None else environ
    try:
        answer = _answer(event_name, stdin.read(), environ, time.time() if now is None else now)
    except Exception as exc:  # a bug in a gate must not stop the person's session
        answer = _warning(f"failed ({type(exc).__name__}: {exc}); nothing was checked")
    if answer:
        stdout.write(json.dumps(answer) + "\n")
    return 0


def _warning(text: str) -> dict[str, Any]:
    return {"systemMessage": f"ralph hook: {text}"}


def _answer(
    event_name: str, raw: str, environ: Mapping[str, str], now: float
) -> dict[str, Any] | None:
    claude_event = HOOK_EVENTS.get(event_name)
    if claude_event is None:
        return _warning(f"unknown event {event_name!r}; nothing was checked")
    try:
        event = json.loads(raw)
    except ValueError:
        return _warning("the hook input is not JSON; nothing was checked")
    if not isinstance(event, dict):
        return _warning("the hook input is not a JSON object; nothing was checked")
    start = environ.get("CLAUDE_PROJECT_DIR") or str(event.get("cwd") or "") or os.getcwd()
    try:
        found = find_context(Path(start))
    except (OSError, ValueError) as exc:
        return _warning(f"cannot read the hook context ({exc}); nothing was checked")
    session = str(event.get("session_id") or "")
    if found is None or not found.context.applies(session, now):
        return None
    context, root = found.context, found.root
    from ralph.hooks import pre_tool_use, stop  # the gates, only with a context in force

    note = {"hook": claude_event, "phase": context.phase, "issue": context.issue}
    if claude_event == "PreToolUse":
        decision = pre_tool_use(
            event,
            context.phase,
            context.issue,
            root=str(root),
            read=_read,
            resolve=os.path.realpath,  # the gate judges where a path really leads
            epic=context.epic,
        )
        _record(root, environ, note, decision, tool=str(event.get("tool_name") or ""))
        return _refusal(claude_event, decision)
    try:
        state = _issue_state(root, context.issue)
    except Exception as exc:  # the tracker is down or the project is misconfigured
        _record(root, environ, {**note, "ok": False, "error": f"cannot read the state: {exc}"})
        return _warning(f"cannot read #{context.issue}'s state ({exc}); the stop is allowed")
    decision = stop(event, context.phase, context.issue, state)
    _record(root, environ, note, decision)
    return _refusal(claude_event, decision)


def _record(
    root: Path,
    environ: Mapping[str, str],
    note: dict[str, Any],
    decision: Decision | None = None,
    **fields: Any,
) -> None:
    """A hook decision in the project's debug log, when the project keeps one."""
    from ralph._debuglog import DEBUG_LOG_DIR, enable_debug_log, record_event
    from ralph.config import load_config
    from ralph.errors import ConfigError

    try:
        if not load_config(root, environ).debug.enabled:
            return
    except ConfigError:  # a project that cannot be read keeps no log; the hook goes on
        return
    enable_debug_log(root / DEBUG_LOG_DIR)
    if decision is not None:
        note = {**note, "blocked": decision.block, "ok": not decision.block}
        if decision.block:
            note["error"] = decision.reason
    record_event("hook", **note, **fields)


def _refusal(claude_event: str, decision: Decision) -> dict[str, Any] | None:
    if not decision.block:
        return None
    if claude_event == "PreToolUse":
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": decision.reason,
            }
        }
    return {"decision": "block", "reason": decision.reason}


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text()
    except (OSError, UnicodeDecodeError):
        return None


def _issue_state(root: Path, issue: int | None) -> str | None:
    """The issue's workflow state on the project's tracker; only a stop with a context
    pays for opening it."""
    if issue is None:
        return None
    from ralph.config import load_config
    from ralph.project import open_tracker

    with open_tracker(load_config(root)) as tracker:
        state = tracker.get_issue(issue).workflow_state
    return None if state is None else str(state.value)
