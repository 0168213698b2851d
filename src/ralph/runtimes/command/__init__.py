"""The command runtime: other agent CLIs (Codex, Gemini CLI, opencode, Claude Code's
own ``-p``, or a plain script) from a command template, or by name (``PRESETS``)."""

from __future__ import annotations

from ralph.runtimes.command._endpoints import local_endpoint
from ralph.runtimes.command._parsers import PARSERS, Parsed
from ralph.runtimes.command._presets import PRESETS, Preset, find_program
from ralph.runtimes.command._runtime import PLACEHOLDERS, CommandRuntime

__all__ = [
    "PARSERS",
    "PLACEHOLDERS",
    "PRESETS",
    "CommandRuntime",
    "Parsed",
    "Preset",
    "find_program",
    "local_endpoint",
]
