"""Where Claude Code's CLI is, for messages that tell a person to run it: ``pip install
'ralph[claude]'`` installs it inside claude-agent-sdk, off the PATH."""

from __future__ import annotations

import shutil
from pathlib import Path

from ralph.runtimes._claude_outcome import LOGIN

__all__ = ["login_command"]


def login_command(cli_path: str | Path | None = None) -> str:
    """``claude auth login`` as a person can type it: with the CLI Ralph runs (the one
    claude-agent-sdk bundles, by its path) unless ``claude`` is on the PATH."""
    if cli_path is not None:
        return f"{cli_path} auth login"
    if shutil.which("claude"):
        return LOGIN
    try:
        import claude_agent_sdk
    except ImportError:
        return LOGIN
    bundled = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    return f"{bundled} auth login" if bundled.is_file() else LOGIN
