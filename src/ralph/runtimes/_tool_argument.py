"""The short argument an activity shows beside a tool call: the file it reads or
writes, the pattern it looks for, the command it runs, the address it fetches."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["shell_command", "tool_argument"]

#: The input names agent CLIs give a tool's subject, most telling first (Claude Code's
#: ``file_path``, Gemini CLI's ``absolute_path``, opencode's ``filePath``, ...).
_SUBJECTS = (
    "file_path",
    "notebook_path",
    "filePath",
    "absolute_path",
    "pattern",  # a search's pattern says more than the folder it searches
    "path",
    "command",
    "cmd",
    "url",
    "query",
)
#: ``bash -lc 'the command'``: how Codex wraps the commands its model asks for.
_SHELLS = frozenset({"bash", "sh", "zsh"})


def tool_argument(arguments: Any, workdir: Path | None = None) -> str:
    """The subject of a tool call's ``arguments`` (a path under ``workdir`` made
    relative to it); "" when it names none."""
    if not isinstance(arguments, Mapping):
        return ""
    for name in _SUBJECTS:
        value = arguments.get(name)
        if isinstance(value, list):  # Codex's command is a list of words
            value = " ".join(str(word) for word in value)
        if isinstance(value, str) and value.strip():
            return relative(value, workdir) if "path" in name.lower() else shell_command(value)
    return ""


def relative(path: str, workdir: Path | None) -> str:
    """``path`` from ``workdir`` when it lies under it (``calc/x.py``), else as given."""
    if workdir is None or not path.startswith("/"):
        return path
    try:
        return str(Path(path).relative_to(workdir)) or path
    except ValueError:
        return path


def shell_command(command: str) -> str:
    """The command a shell wrapper runs (``/bin/bash -lc 'make test'`` -> ``make test``)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if len(words) == 3 and Path(words[0]).name in _SHELLS and words[1] in ("-c", "-lc"):
        return words[2]
    return command
