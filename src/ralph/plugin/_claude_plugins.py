"""Claude Code's plugin commands (``claude plugin ...``), run with ``--json`` and a
timeout: they read and write Claude Code's own settings, offline for a local
marketplace."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.errors import NeedsPerson

__all__ = ["ClaudePlugins", "InstalledPlugin"]

_TIMEOUT_SECONDS = 120


@dataclass(frozen=True)
class InstalledPlugin:
    """One plugin as ``claude plugin list`` reports it."""

    plugin_id: str  # name@marketplace
    version: str
    scope: str
    enabled: bool
    folder: Path  # where Claude Code loads it from


@dataclass(frozen=True)
class ClaudePlugins:
    """The plugin commands of the Claude Code CLI at ``cli``, in ``environ``."""

    cli: Path
    environ: Mapping[str, str]

    def version(self) -> str:
        return self._run("--version").strip().split(" ")[0]

    def add_marketplace(self, source: Path, name: str, scope: str) -> None:
        """Add (or point again at) the marketplace at ``source`` and reread it."""
        self._json("plugin", "marketplace", "add", str(source), "--scope", scope)
        self._json("plugin", "marketplace", "update", name)

    def install(self, plugin_id: str, scope: str) -> str:
        """Install or bring up to date ``plugin_id``; what Claude Code said."""
        answer = self._json("plugin", "install", plugin_id, "--scope", scope)
        available = answer.get("availableVersion")
        if available is not None and answer.get("installedVersion") != available:
            answer = self._json("plugin", "update", plugin_id, "--scope", scope)
        return str(answer.get("message", ""))

    def installed(self) -> list[InstalledPlugin]:
        listed = json.loads(self._run("plugin", "list", "--json") or "[]")
        return [
            InstalledPlugin(
                plugin_id=str(p.get("id", "")),
                version=str(p.get("version", "")),
                scope=str(p.get("scope", "")),
                enabled=bool(p.get("enabled")),
                folder=Path(str(p.get("readFromFolder") or p.get("installPath") or "")),
            )
            for p in listed
            if isinstance(p, dict)
        ]

    def _json(self, *args: str) -> dict[str, Any]:
        """Run a command with ``--json``: its result line, or its message as an error."""
        out = self._run(*args, "--json", check=False)
        lines = [line for line in out.splitlines() if line.startswith("{")]
        answer: dict[str, Any] = json.loads(lines[-1]) if lines else {}
        if answer.get("outcome") != "ok":
            said = answer.get("message") or out.strip() or "no answer"
            raise NeedsPerson(f"claude {' '.join(args[:3])} failed: {said}")
        return answer

    def _run(self, *args: str, check: bool = True) -> str:
        try:
            done = subprocess.run(
                [str(self.cli), *args],
                capture_output=True,
                text=True,
                timeout=_TIMEOUT_SECONDS,
                stdin=subprocess.DEVNULL,
                env=dict(self.environ),
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise NeedsPerson(f"{self.cli} {' '.join(args[:3])} did not run: {error}") from error
        if check and done.returncode != 0:
            said = (done.stderr or done.stdout).strip().splitlines()
            raise NeedsPerson(
                f"{self.cli} {' '.join(args[:3])} failed: {said[-1] if said else done.returncode}"
            )
        return done.stdout
