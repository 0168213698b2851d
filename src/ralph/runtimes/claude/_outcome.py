"""How a Claude Code run ended, as an AgentStatus: a pure function of the final
``result`` frame (core keys only; the key set grows with every CLI release) and of what
the runtime saw around it (a timeout, a stall, a process that died)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ralph.runtimes._model import AgentStatus

__all__ = ["Outcome", "classify", "structured_result"]

#: The text Claude Code returns, with subtype success, when a UserPromptSubmit hook
#: blocked the prompt: no API call was made.
_BLOCKED_PROMPT = "UserPromptSubmit operation blocked by hook"


@dataclass(frozen=True)
class Outcome:
    status: AgentStatus
    error: str = ""


def _errors(frame: Mapping[str, Any]) -> str:
    errors = frame.get("errors") or []
    return "; ".join(str(e) for e in errors) if isinstance(errors, list) else str(errors)


def classify(
    frame: Mapping[str, Any] | None,
    *,
    timed_out: str = "",
    crashed: str = "",
) -> Outcome:
    """``frame`` is the last ``result`` frame, if one came. ``timed_out`` says why the
    runtime stopped the run (timeout or stall); ``crashed`` what broke otherwise."""
    if timed_out:
        return Outcome(AgentStatus.TIMEOUT, timed_out)
    if frame is None:
        return Outcome(AgentStatus.CRASHED, crashed or "Claude Code ended without a result")
    subtype = str(frame.get("subtype", ""))
    if subtype == "error_max_turns":
        return Outcome(AgentStatus.TURNS_EXCEEDED, _errors(frame) or "maximum turns reached")
    if subtype == "error_max_budget_usd":
        return Outcome(AgentStatus.BUDGET_EXCEEDED, _errors(frame) or "budget exhausted")
    if subtype != "success":
        return Outcome(AgentStatus.FAILED, f"{subtype}: {_errors(frame)}".rstrip(": "))
    text = str(frame.get("result") or "")
    if frame.get("is_error"):
        # An API failure arrives as subtype success with is_error set.
        status = frame.get("api_error_status")
        return Outcome(AgentStatus.FAILED, text or f"API error {status}")
    if text.startswith(_BLOCKED_PROMPT):
        return Outcome(AgentStatus.FAILED, "a hook blocked the prompt: " + text.splitlines()[0])
    if frame.get("terminal_reason") == "hook_stopped":
        return Outcome(AgentStatus.FAILED, "a hook stopped the run")
    return Outcome(AgentStatus.OK)


def structured_result(frame: Mapping[str, Any]) -> dict[str, Any] | None:
    """The structured output of a successful run: ``structured_output``, or the final
    text when it is a JSON object (a model that answered in text)."""
    found = frame.get("structured_output")
    if isinstance(found, dict):
        return found
    text = str(frame.get("result") or "").strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None
