"""Where Claude Code's CLI is, for ``ralph login`` and for messages that tell a person
to log in: ``pip install 'ralph-delivery[claude]'`` installs it inside claude-agent-sdk, off the
PATH, at a path nobody types."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from ralph.runtimes._claude_outcome import LOGIN

__all__ = ["claude_cli", "login_command"]


def claude_cli(environ: Mapping[str, str] | None = None) -> Path | None:
    """The ``claude`` on the PATH, else the one claude-agent-sdk bundles; None when
    neither is here."""
    environ = os.environ if environ is None else environ
    found = shutil.which("claude", path=environ.get("PATH"))
    if found:
        return Path(found)
    try:
        import claude_agent_sdk
    except ImportError:
        return None
    bundled = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    return bundled if bundled.is_file() else None


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
