"""The Claude Code runtime (``--agent claude``; ``pip install 'ralph-delivery[claude]'``)."""

from __future__ import annotations

from ralph.runtimes._claude_cli import login_command
from ralph.runtimes._claude_outcome import Outcome, classify, setup_problem, structured_result
from ralph.runtimes.claude._runtime import ClaudeRuntime

__all__ = [
    "ClaudeRuntime",
    "Outcome",
    "classify",
    "login_command",
    "setup_problem",
    "structured_result",
]
