"""The command runtime: other agent CLIs (Codex, Gemini CLI, opencode, Claude Code's
own ``-p``, or a plain script) from a command template."""

from __future__ import annotations

from ralph.runtimes.command._parsers import PARSERS, Parsed
from ralph.runtimes.command._runtime import PLACEHOLDERS, CommandRuntime

__all__ = ["PARSERS", "PLACEHOLDERS", "CommandRuntime", "Parsed"]
