"""Agent runtimes: a phase hands one an AgentBrief and gets one AgentResult back.

``scripted`` (in-process, deterministic; tests and the demo) ships here; Claude Code and
other agent CLIs plug in behind the same interface.
"""

from __future__ import annotations

from ralph.runtimes._environment import scrubbed_environment
from ralph.runtimes._model import (
    AgentBrief,
    AgentResult,
    AgentStatus,
    Document,
    Feedback,
    IssueContext,
    Limits,
)
from ralph.runtimes._open import RUNTIMES, open_runtime
from ralph.runtimes._runtime import AgentRuntime
from ralph.runtimes._stop import StopSignal

__all__ = [
    "RUNTIMES",
    "AgentBrief",
    "AgentResult",
    "AgentRuntime",
    "AgentStatus",
    "Document",
    "Feedback",
    "IssueContext",
    "Limits",
    "StopSignal",
    "open_runtime",
    "scrubbed_environment",
]
