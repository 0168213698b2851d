"""``ralph login``: Claude Code's own login, with the CLI Ralph runs. ``pip install
'ralph-delivery[claude]'`` puts that CLI inside claude-agent-sdk, at a path nobody types, so
this is the command the missing-key messages can name."""

from __future__ import annotations

import os

from ralph.errors import ConfigError

__all__ = ["login_command"]


def login_command() -> None:
    """Log Claude Code in (its `auth login`, with the CLI on the PATH or the one
    claude-agent-sdk bundles): the login the claude agent then uses instead of
    ANTHROPIC_API_KEY."""
    from ralph._distribution import install_hint
    from ralph.runtimes import claude_cli

    cli = claude_cli()
    if cli is None:
        raise ConfigError(
            f"Claude Code is not here: {install_hint('claude')}; it bundles Claude Code"
        )
    # Claude Code talks to the person itself (a URL, a code to paste): it gets the
    # terminal, and its exit status is this command's.
    os.execv(cli, [str(cli), "auth", "login"])
