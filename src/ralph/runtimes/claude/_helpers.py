"""Sub-agents a phase's Claude Code run may hand searches to (research's
codebase-locator, codebase-analyzer and codebase-pattern-finder), so that its own
context holds their conclusions rather than the files they read. Each is defined once,
in the plugin's agents folder (frontmatter ``name``, ``description``, ``tools``,
``model``; the body is its prompt), for the plugin's sessions and for Ralph's runs
alike."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from typing import Any

from ralph.artifacts import parse_frontmatter

__all__ = ["TASK_TOOL", "helper_definitions"]

#: Claude Code's tool that starts a sub-agent (the model sees it as ``Agent``).
TASK_TOOL = "Task"
#: The plugin's agents, read as package data (the plugin folder ships inside Ralph).
_FOLDER = "plugin/ralph-hero/agents"


def helper_definitions(names: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Each named helper as the fields of the SDK's ``AgentDefinition``."""
    folder = resources.files("ralph").joinpath(_FOLDER)
    found: dict[str, dict[str, Any]] = {}
    for name in names:
        fields, body = parse_frontmatter(folder.joinpath(f"{name}.md").read_text())
        found[name] = {
            "description": str(fields["description"]),
            "prompt": body.strip(),
            "tools": [tool.strip() for tool in str(fields["tools"]).split(",")],
            "model": str(fields.get("model") or "inherit"),
        }
    return found
