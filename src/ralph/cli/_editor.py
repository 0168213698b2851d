"""A file handed to the person's editor ($VISUAL, else $EDITOR), as git and gh do, but
only when a person is at a terminal: a pipe, a script or an agent's shell (Claude Code's
Bash has no terminal) gets the file's path instead, and nothing waits for them."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from ralph.errors import InvalidInput

__all__ = ["EDITOR_TIMEOUT_SECONDS", "edit", "edit_on_terminal", "editor", "on_terminal"]

#: How long a person may take in the editor before the command gives up (every wait ends).
EDITOR_TIMEOUT_SECONDS = 6 * 3600


def on_terminal() -> bool:
    """A person at a terminal: standard input and output both are one."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def editor() -> list[str]:
    """The person's editor command line, ``$VISUAL`` before ``$EDITOR``; empty when unset."""
    for variable in ("VISUAL", "EDITOR"):
        named = os.environ.get(variable, "").strip()
        if named:
            try:
                return shlex.split(named)
            except ValueError:
                raise InvalidInput(f"${variable} {named!r} is not a command line") from None
    return []


def edit(command: list[str], path: Path) -> int:
    """Open ``path`` in ``command`` and wait (at most EDITOR_TIMEOUT_SECONDS) until the
    person closes it; the editor's exit code."""
    try:
        done = subprocess.run([*command, str(path)], check=False, timeout=EDITOR_TIMEOUT_SECONDS)
    except OSError as exc:
        raise InvalidInput(f"cannot start the editor {command[0]!r}: {exc.strerror}") from None
    except subprocess.TimeoutExpired:
        raise InvalidInput("the editor was open too long; nothing was taken from it") from None
    return done.returncode


def edit_on_terminal(path: Path) -> bool:
    """Open ``path`` in the person's editor when standard input and output are a terminal
    and an editor is named; True if it was opened."""
    if not on_terminal():
        return False
    command = editor()
    if not command:
        return False
    edit(command, path)
    return True
