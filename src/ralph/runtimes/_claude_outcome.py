"""How a Claude Code run ended, as an AgentStatus: a pure function of the final
``result`` frame (core keys only; the key set grows with every CLI release) and of what
the runtime saw around it (a timeout, a stall, a process that died, an API answer that
says the setup is wrong). Shared by the claude runtime and the command runtime's
``claude`` output format.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ralph.runtimes._model import AgentStatus
from ralph.runtimes._provider_limits import ProviderLimit, from_text
from ralph.sandbox import ALLOW_UNSANDBOXED

__all__ = [
    "LOGIN",
    "Outcome",
    "classify",
    "sandbox_problem",
    "setup_problem",
    "structured_result",
]

#: What Claude Code says (in its result's errors and on stderr) when
#: ``failIfUnavailable`` stopped it.
SANDBOX_UNAVAILABLE = "sandbox required but unavailable"

#: The text Claude Code returns, with subtype success, when a UserPromptSubmit hook
#: blocked the prompt: no API call was made.
_BLOCKED_PROMPT = "UserPromptSubmit operation blocked by hook"
#: How a person logs Claude Code in, when the runtime cannot say where its CLI is.
LOGIN = "claude auth login"
#: Claude Code's names for API errors no retry fixes (assistant ``error``, api_retry
#: ``error``), and the HTTP statuses that mean the same.
_AUTH_ERRORS = frozenset({"authentication_failed", "authentication_error", "permission_error"})
_BILLING_ERRORS = frozenset({"billing_error"})
_MODEL_ERRORS = frozenset({"model_not_found", "not_found_error"})


def setup_problem(
    status: int | None, kind: str = "", text: str = "", *, model: str = "", login: str = LOGIN
) -> str:
    """What a person must fix, when an API answer (HTTP ``status``, Claude Code's error
    ``kind``, its message ``text``) says the agent cannot work here at all; "" when a
    retry might help."""
    said = ": ".join(str(part) for part in (status, kind, text) if part)
    if kind in _MODEL_ERRORS or (status == 404 and "model" in text.lower()):
        which = f"the model {model!r}" if model else "Claude Code's default model"
        return (
            f"{which} is not available to this account ({said}); set [agent] model (or "
            "[agent.phases.PHASE] model) in ralph.toml to a model you can use, or leave "
            "it empty for Claude Code's default, then run again"
        )
    if kind in _BILLING_ERRORS or "credit balance" in text.lower():
        return (
            f"the Anthropic account cannot pay for this run ({said}); add credit to it, or "
            "set ANTHROPIC_API_KEY to a key of an account that can, then run again"
        )
    if kind in _AUTH_ERRORS or status in (401, 403):
        return (
            f"Claude Code's credentials were refused ({said}); set ANTHROPIC_API_KEY to a "
            f"valid key, or log in with `{login}`, then run again"
        )
    return ""


def sandbox_problem(said: str) -> str:
    """What a person must do, when Claude Code (``said``: its result's errors or its
    stderr) refused to start because its sandbox cannot run here; "" otherwise."""
    lowered = said.lower()
    if SANDBOX_UNAVAILABLE not in lowered:
        return ""
    # "...unavailable: sandbox is enabled but dependencies are missing: bubblewrap
    # (bwrap) not installed · install missing tools (...) or see https://..."
    why = said[lowered.index(SANDBOX_UNAVAILABLE) + len(SANDBOX_UNAVAILABLE) :]
    why = why.lstrip(": ").split(" · ")[0].split(". Set sandbox.")[0].partition("\n")[0]
    why = why.removeprefix("sandbox is enabled but ").strip().rstrip(".")
    return (
        f"Claude Code's sandbox cannot start here ({why or 'no reason given'}); install "
        "bubblewrap and socat (e.g. apt-get install bubblewrap socat), or set "
        f"{ALLOW_UNSANDBOXED} to let agents run unconfined, then run again"
    )


@dataclass(frozen=True)
class Outcome:
    status: AgentStatus
    error: str = ""
    #: RATE_LIMITED: when the limit lifts (epoch seconds; 0 when not said).
    resets_at: float = 0.0


#: Claude Code's names (``api_error_type``) for a provider's "not now".
_LIMIT_TYPES = frozenset({"rate_limit_error", "overloaded_error"})


def _limited(frame: Mapping[str, Any], text: str, now: float) -> ProviderLimit | None:
    """An error result that is the provider's limit: a 429 or 529, a rate limit or
    overload error, a subscription's "usage limit reached ... resets at T"."""
    status = frame.get("api_error_status")
    code = status if isinstance(status, int) else None
    found = from_text(text or f"API error {status}", now, status=code)
    if found is None and str(frame.get("api_error_type") or "") in _LIMIT_TYPES:
        found = from_text(f"{frame.get('api_error_type')}: {text}", now, status=429)
    return found


def _errors(frame: Mapping[str, Any]) -> str:
    errors = frame.get("errors") or []
    return "; ".join(str(e) for e in errors) if isinstance(errors, list) else str(errors)


def classify(
    frame: Mapping[str, Any] | None,
    *,
    timed_out: str = "",
    crashed: str = "",
    misconfigured: str = "",
    limited: ProviderLimit | None = None,
    model: str = "",
    login: str = LOGIN,
    now: float | None = None,
) -> Outcome:
    """``frame`` is the last ``result`` frame, if one came. ``timed_out`` says why the
    runtime stopped the run (timeout or stall); ``crashed`` what broke otherwise;
    ``misconfigured`` what to fix when an API answer on the way said the setup is
    wrong; ``limited`` the provider's limit the run met on the way (the runtime
    stopped a CLI retrying it, or a rate limit event said when it resets)."""
    now = time.time() if now is None else now
    if misconfigured:
        return Outcome(AgentStatus.MISCONFIGURED, misconfigured)
    if limited is not None and (frame is None or timed_out):
        return Outcome(AgentStatus.RATE_LIMITED, limited.said, limited.resets_at)
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
        code = status if isinstance(status, int) else None
        problem = setup_problem(code, text=text, model=model, login=login)
        if problem:
            return Outcome(AgentStatus.MISCONFIGURED, problem)
        found = _limited(frame, text, now)
        found = found.reset_from(limited) if found is not None else limited
        if found is not None:
            return Outcome(AgentStatus.RATE_LIMITED, found.said, found.resets_at)
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
