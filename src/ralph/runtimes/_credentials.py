"""Whether an agent has what it needs to reach its model on this machine (a key in the
environment or its CLI's own login), said before a run pays for finding out: by
``ralph doctor`` for every agent a project uses, and by ``open_runtime`` for Claude.
Only looks at files and variables here; nothing is sent. A CLI whose own config
sends its model's requests to a keyless server on this machine (Ollama, vLLM, LM
Studio) needs no key."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ralph._agents import find_agent_cli
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


def agent_credentials(
    agent: str, environ: Mapping[str, str] | None = None, home: Path | None = None
) -> Credentials:
    """Whether ``agent`` (a name ``--agent`` takes) can authenticate here."""
    if agent == "scripted":
        return Credentials(agent, True, "simulated, needs none")
    cli = find_agent_cli(agent)
    if cli is None:  # a command of the person's own: its credentials are its business
        return Credentials(agent, None, "a command of your own; Ralph cannot tell")
    way = cli.login
    environ = os.environ if environ is None else environ
    # Imported here: the command runtimes build on this package's modules.
    from ralph.runtimes.command import local_endpoint

    if server := local_endpoint(agent, environ):  # Ollama, vLLM, LM Studio: no key
        return Credentials(agent, True, f"a model server on this machine ({server}): needs no key")
    for name in way.keys:
        if environ.get(name):
            return Credentials(agent, True, name)
    home = Path(environ.get("HOME") or Path.home()) if home is None else home
    named = environ.get(way.folder_variable) if way.folder_variable else None
    folder = named or str(home / way.folder)
    login = Path(folder) / way.file
    if login.is_file():
        return Credentials(agent, True, f"logged in ({login})")
    how = way.how or f"log in with `{login_command(environ=environ)}`"
    keys = " or ".join(way.keys[: way.suggested])
    return Credentials(agent, False, fix=f"set {keys}, or {how}")
