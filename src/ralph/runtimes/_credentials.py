"""Whether an agent has what it needs to reach its model on this machine (a key in the
environment or its CLI's own login), said before a run pays for finding out: by
``ralph doctor`` for every agent a project uses, and by ``open_runtime`` for Claude.
Only looks for files and variables; nothing is read or sent."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ralph.runtimes._claude_cli import login_command

__all__ = ["OFFLINE_HINT", "Credentials", "agent_credentials"]

#: How a person tries Ralph with no agent account at all.
OFFLINE_HINT = "or try Ralph offline with --agent scripted"


@dataclass(frozen=True)
class Credentials:
    """``ready``: True (found), False (missing) or None (Ralph cannot tell: a command
    of the person's own). ``found`` says where; ``fix`` what to do when missing."""

    agent: str
    ready: bool | None
    found: str = ""
    fix: str = ""


@dataclass(frozen=True)
class _Way:
    """The ways one agent CLI authenticates."""

    #: Variables any one of which is enough; the first ``named`` are the ones to suggest.
    variables: tuple[str, ...]
    named: int
    #: Its login file: in the folder ``login_dir_variable`` names, else in that folder
    #: of the home.
    login_file: str
    login_dir_variable: str
    login_dir_default: str
    #: How a person logs in (with the CLI's own command); "": Claude Code's, found.
    login: str


_WAYS = {
    "claude": _Way(
        # Bedrock and Vertex: the cloud's own credentials, which Claude Code reads.
        (
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "CLAUDE_CODE_OAUTH_TOKEN",
            "CLAUDE_CODE_USE_BEDROCK",
            "CLAUDE_CODE_USE_VERTEX",
        ),
        1,
        ".credentials.json",
        "CLAUDE_CONFIG_DIR",
        ".claude",
        "",  # login_command() finds the CLI
    ),
    "codex": _Way(
        ("OPENAI_API_KEY", "CODEX_API_KEY"),
        2,
        "auth.json",
        "CODEX_HOME",
        ".codex",
        "log in with `codex login`",
    ),
    "gemini": _Way(
        ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"),
        2,
        "oauth_creds.json",
        "",
        ".gemini",
        "run `gemini` once and choose Login with Google",
    ),
    "opencode": _Way(
        # opencode reaches any provider whose key is set.
        ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"),
        4,
        "opencode/auth.json",
        "XDG_DATA_HOME",
        ".local/share",
        "log in with `opencode auth login`",
    ),
}


def agent_credentials(
    agent: str, environ: Mapping[str, str] | None = None, home: Path | None = None
) -> Credentials:
    """Whether ``agent`` (a name ``--agent`` takes) can authenticate here."""
    if agent == "scripted":
        return Credentials(agent, True, "simulated, needs none")
    way = _WAYS.get(agent)
    if way is None:  # a command of the person's own: its credentials are its business
        return Credentials(agent, None, "a command of your own; Ralph cannot tell")
    environ = os.environ if environ is None else environ
    for name in way.variables:
        if environ.get(name):
            return Credentials(agent, True, name)
    home = Path(environ.get("HOME") or Path.home()) if home is None else home
    named = environ.get(way.login_dir_variable) if way.login_dir_variable else None
    folder = named or str(home / way.login_dir_default)
    login = Path(folder) / way.login_file
    if login.is_file():
        return Credentials(agent, True, f"logged in ({login})")
    how = way.login or f"log in with `{login_command(environ=environ)}`"
    keys = " or ".join(way.variables[: way.named])
    return Credentials(agent, False, fix=f"set {keys}, or {how}")
