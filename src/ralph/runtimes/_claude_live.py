"""Claude Code's messages as they arrive, into the activity feed: both the Claude Code
runtime (claude-agent-sdk's messages, turned into the frames below) and the command
runtime's ``claude`` output format (``--output-format stream-json``) read them here.

The frames are the CLI's ``stream-json`` lines: an ``assistant`` message per content
block (its text, its tool calls), each carrying its API message's id and usage so far;
a ``system``/``permission_denied`` frame for each tool call its permissions refused;
the ``result`` frame with the run's totals.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ralph.runtimes._activity import ActivityFeed
from ralph.runtimes._tool_argument import tool_argument

__all__ = ["ClaudeLive", "usage_tokens"]

#: The tool that hands back the structured result: how the run ends, not its work.
_RESULT_TOOL = "StructuredOutput"
_USAGE_KEYS = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
)


def usage_tokens(usage: Any) -> int:
    """Every token of a Claude usage object, cached input included."""
    if not isinstance(usage, Mapping):
        return 0
    return sum(n for key in _USAGE_KEYS if isinstance(n := usage.get(key), int))


class ClaudeLive:
    """One Claude Code run's frames, read in order into ``feed``."""

    def __init__(self, feed: ActivityFeed, workdir: Path | None = None) -> None:
        self.feed = feed
        self.workdir = workdir
        #: Tokens reported so far per API message: its blocks repeat its usage.
        self._tokens: dict[str, int] = {}
        self._unnamed = 0

    def frame(self, frame: Mapping[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "assistant":
            message = frame.get("message")
            if isinstance(message, Mapping):
                self.assistant(message)
        elif kind == "system" and frame.get("subtype") == "permission_denied":
            if name := frame.get("tool_name"):
                self.feed.refused(str(name))
        elif kind == "result":
            cost = frame.get("total_cost_usd")
            # Its totals stand, unless its messages counted more (a subagent's, say).
            counted = sum(self._tokens.values())
            self.feed.usage(
                tokens=max(usage_tokens(frame.get("usage")), counted),
                cost_usd=float(cost) if isinstance(cost, int | float) else 0.0,
                total=True,
            )

    def assistant(self, message: Mapping[str, Any]) -> None:
        """One assistant frame: a new API message is a turn; its text is said, its
        tool calls shown; its usage counted once however many frames repeat it."""
        key = message.get("id")
        if not isinstance(key, str) or not key:
            self._unnamed += 1
            key = f"#{self._unnamed}"
        if key not in self._tokens:
            self._tokens[key] = 0
            self.feed.turn()
        tokens = usage_tokens(message.get("usage"))
        if tokens > self._tokens[key]:
            self.feed.usage(tokens=tokens - self._tokens[key])
            self._tokens[key] = tokens
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, Mapping):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                self.feed.said(block["text"])
            elif block.get("type") == "tool_use" and block.get("name") not in (None, _RESULT_TOOL):
                self.feed.tool(str(block["name"]), tool_argument(block.get("input"), self.workdir))
