"""Ralph as a Claude Code plugin: the plugin folder shipped in the package
(``ralph-hero/``: skills, agents, hooks, the MCP server) and ``ralph hook``, which Claude
Code runs for the plugin's hooks.

This package is what ``ralph hook EVENT`` imports before answering, so it imports little:
the gates (``ralph.hooks``) and anything heavier only once a hook context is set.
"""

from __future__ import annotations

from ralph.plugin._context import HookContext
from ralph.plugin._context_file import CONTEXT_FILE, clear_context, find_context, set_context
from ralph.plugin._hook import HOOK_EVENTS, run_hook
from ralph.plugin._path import PLUGIN_NAME, plugin_path

__all__ = [
    "CONTEXT_FILE",
    "HOOK_EVENTS",
    "PLUGIN_NAME",
    "HookContext",
    "clear_context",
    "find_context",
    "plugin_path",
    "run_hook",
    "set_context",
]
