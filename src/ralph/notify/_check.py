"""What ``ralph doctor`` says of the ``[notify]`` settings without sending anything: the
command's program is found, the webhook's host takes a connection."""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ralph.config import NotifySettings

__all__ = ["NotifyCheck", "check_notify"]

#: How long doctor waits for the webhook's host to take a connection.
REACH_SECONDS = 3.0


@dataclass(frozen=True)
class NotifyCheck:
    #: "command" or "webhook".
    target: str
    ok: bool
    detail: str


def _program(command: str, cwd: Path) -> NotifyCheck:
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return NotifyCheck("command", False, f"`{command}` does not parse: {exc}")
    # `VAR=value cmd ...` sets a variable first: the program is the first other word.
    program = next((w for w in words if "=" not in w.partition("/")[0]), "")
    if not program:
        return NotifyCheck("command", False, f"`{command}` names no program")
    if "/" in program:
        path = Path(program) if Path(program).is_absolute() else cwd / program
        if not path.is_file():
            return NotifyCheck("command", False, f"{program} does not exist")
        if not os.access(path, os.X_OK):
            return NotifyCheck("command", False, f"{program} is not executable (chmod +x)")
        return NotifyCheck("command", True, f"`{command}` ({path})")
    found = _known_to_shell(program)
    if found is None:
        return NotifyCheck("command", False, f"{program} is not found on PATH")
    return NotifyCheck("command", True, f"`{command}` ({found})")


def _known_to_shell(program: str) -> str | None:
    """Where the shell finds ``program`` (its path, or its name for a builtin)."""
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", 'command -v "$1"', "sh", program],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or program


def _reach(url: str, *, timeout: float) -> NotifyCheck:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return NotifyCheck("webhook", False, f"{host}:{port} cannot be reached ({reason})")
    return NotifyCheck("webhook", True, f"{host}:{port} takes connections (nothing sent)")


def check_notify(
    settings: NotifySettings, cwd: Path, *, timeout: float = REACH_SECONDS
) -> list[NotifyCheck]:
    """A check per target ``settings`` name (none when they name none). The webhook's
    URL was checked when the settings were read; here its host is only connected to."""
    checks = []
    if settings.command:
        checks.append(_program(settings.command, cwd))
    if settings.webhook:
        checks.append(_reach(settings.webhook, timeout=timeout))
    return checks
