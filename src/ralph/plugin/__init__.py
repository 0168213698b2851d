"""Ralph as a Claude Code plugin: the plugin folder shipped in the package
(``ralph-hero/``: skills, agents, hooks, the MCP server, and ``bin/ralph``, the launcher
they run ``ralph`` through), ``ralph hook``, which Claude Code runs for the plugin's
hooks, and ``ralph plugin install`` / ``check``, which install it through Claude Code's
CLI and say what Claude Code sees.

This package is what ``ralph hook EVENT`` imports before answering, so it imports little:
the gates (``ralph.hooks``) and anything heavier only once a hook context is set, and the
installer's names on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ralph.plugin._context import HookContext
from ralph.plugin._context_file import CONTEXT_FILE, clear_context, find_context, set_context
from ralph.plugin._hook import HOOK_EVENTS, run_hook
from ralph.plugin._path import PLUGIN_NAME, plugin_path

if TYPE_CHECKING:
    from ralph.plugin._claude_plugins import InstalledPlugin
    from ralph.plugin._install import (
        PLUGIN_ID,
        SCOPES,
        PluginCheck,
        check_plugin,
        install_plugin,
    )
    from ralph.plugin._marketplace import (
        MARKETPLACE_NAME,
        marketplace_folder,
        this_ralph,
        write_marketplace,
    )

#: Names loaded on first use, and their modules.
_LAZY = {
    **dict.fromkeys(
        ["PLUGIN_ID", "SCOPES", "PluginCheck", "check_plugin", "install_plugin"],
        "ralph.plugin._install",
    ),
    "InstalledPlugin": "ralph.plugin._claude_plugins",
    **dict.fromkeys(
        ["MARKETPLACE_NAME", "marketplace_folder", "this_ralph", "write_marketplace"],
        "ralph.plugin._marketplace",
    ),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'ralph.plugin' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


__all__ = [
    "CONTEXT_FILE",
    "HOOK_EVENTS",
    "MARKETPLACE_NAME",
    "PLUGIN_ID",
    "PLUGIN_NAME",
    "SCOPES",
    "HookContext",
    "InstalledPlugin",
    "PluginCheck",
    "check_plugin",
    "clear_context",
    "find_context",
    "install_plugin",
    "marketplace_folder",
    "plugin_path",
    "run_hook",
    "set_context",
    "this_ralph",
    "write_marketplace",
]
