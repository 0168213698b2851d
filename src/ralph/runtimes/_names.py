"""The names ``--agent`` takes, apart from the runtimes themselves: the CLI's help lists
them without loading a runtime."""

from __future__ import annotations

__all__ = ["AGENTS", "RUNTIMES"]

RUNTIMES = ("claude", "command", "scripted")
#: Every name ``--agent`` takes: the runtimes and the agent CLIs known by name.
AGENTS = ("claude", "codex", "gemini", "opencode", "command", "scripted")
