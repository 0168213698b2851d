"""Where Claude Code's CLI is, for ``ralph login`` and for messages that tell a person
to log in: ``pip install 'ralph-delivery[claude]'`` installs it inside claude-agent-sdk, off the
PATH, at a path nobody types."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from ralph.runtimes._claude_outcome import LOGIN

__all__ = ["bundled_claude", "claude_cli", "login_command"]

#: The one line of claude_agent_sdk/_cli_version.py, read rather than imported.
_CLI_VERSION = re.compile(r"""^__cli_version__\s*=\s*["']([^"'\n]*)["']""", re.MULTILINE)


def claude_cli(environ: Mapping[str, str] | None = None) -> Path | None:
    """The ``claude`` on the PATH, else the one claude-agent-sdk bundles; None when
    neither is here."""
    environ = os.environ if environ is None else environ
    found = shutil.which("claude", path=environ.get("PATH"))
    if found:
        return Path(found)
    bundled = bundled_claude()
    return bundled[0] if bundled is not None else None


def bundled_claude() -> tuple[Path, str] | None:
    """The Claude Code claude-agent-sdk bundles and its version; None when the package
    or its CLI is not here. Found without importing the package, whose import (MCP,
    pydantic, anyio) would cost ``ralph doctor`` more than the rest of its checks."""
    try:
        spec = importlib.util.find_spec("claude_agent_sdk")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    bundled = folder / "_bundled" / "claude"
    if not bundled.is_file():
        return None
    try:
        text = (folder / "_cli_version.py").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return bundled, ""
    version = _CLI_VERSION.search(text)
    return bundled, version.group(1) if version else ""


def login_command(
    cli_path: str | Path | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """How a person logs Claude Code in, as they can type it: with ``cli_path`` when
    Ralph runs a CLI of its own choosing, ``claude auth login`` when ``claude`` is on
    the PATH, else ``ralph login``, which runs the bundled one's."""
    if cli_path is not None:
        return f"{cli_path} auth login"
    environ = os.environ if environ is None else environ
    return LOGIN if shutil.which("claude", path=environ.get("PATH")) else "ralph login"
