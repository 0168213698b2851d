"""Where the installed package keeps the plugin folder."""

from __future__ import annotations

from pathlib import Path

__all__ = ["PLUGIN_NAME", "plugin_path"]

PLUGIN_NAME = "ralph-hero"


def plugin_path() -> Path:
    """The plugin folder, for ``claude --plugin-dir``."""
    return Path(__file__).resolve().parent / PLUGIN_NAME
