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

__all__ = ["edit_on_terminal"]


def _editor() -> list[str]:
    for variable in ("VISUAL", "EDITOR"):
        named = os.environ.get(variable, "").strip()
        if named:
            try:
                return shlex.split(named)
            except ValueError:
                raise InvalidInput(f"${variable} {named!r} is not a command line") from None
    return []


def edit_on_terminal(path: Path) -> bool:
    """Open ``path`` in the person's editor and wait until they close it, when standard
    input and output are a terminal and an editor is named; True if it was opened.

    No time limit: the editor is the person's, and ends when they close it."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    editor = _editor()
    if not editor:
        return False
    try:
        subprocess.run([*editor, str(path)], check=False)
    except OSError as exc:
        raise InvalidInput(f"cannot start the editor {editor[0]!r}: {exc.strerror}") from None
    return True
