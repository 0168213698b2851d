"""The gates ``ralph hook`` applies to a Claude Code session while one of Ralph's skills
runs: for each hook event, whether the tool call or the stop goes ahead. Pure: the caller
reads stdin, files and the tracker."""

from __future__ import annotations

from ralph.hooks._gates import Decision, pre_tool_use, stop

__all__ = ["Decision", "pre_tool_use", "stop"]
