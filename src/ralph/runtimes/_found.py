"""Which agent CLIs are here, and their versions, for ``ralph doctor``: Claude Code (on
the PATH, or the one claude-agent-sdk bundles) and the CLIs the presets run (on the
PATH, or in the project's ``node_modules/.bin``)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ralph._distribution import install_hint

__all__ = ["FoundCLI", "found_agent_clis"]

_VERSION_SECONDS = 20.0


@dataclass(frozen=True)
class FoundCLI:
    name: str
    title: str
    #: How to install it, when it was not found.
    install: str
    path: Path | None = None
    version: str = ""


def _package_version(program: Path, package: str) -> str:
    """The version in the package.json of the npm package ``program`` belongs to (an
    npm install links its command there): no need to run it."""
    for folder in program.resolve().parents:
        manifest = folder / "package.json"
        if manifest.is_file():
            try:
                data = json.loads(manifest.read_text())
            except (OSError, ValueError):
                return ""
            return str(data.get("version", "")) if data.get("name") == package else ""
    return ""


def _asked_version(program: Path) -> str:
    try:
        ran = subprocess.run(
            [str(program), "--version"],
            capture_output=True,
            text=True,
            timeout=_VERSION_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = (ran.stdout or ran.stderr).strip().splitlines()
    return lines[0].strip() if ran.returncode == 0 and lines else ""


def _claude(environ: Mapping[str, str] | None) -> FoundCLI:
    from ralph.runtimes.command import find_program

    install = f"{install_hint('claude')}; it bundles Claude Code"
    path = find_program("claude", environ=environ)
    if path is not None:
        version = _asked_version(path)
        return FoundCLI("claude", "Claude Code", install, path, version.split(" (")[0])
    from ralph.runtimes._claude_cli import bundled_claude

    found = bundled_claude()
    if found is None:
        return FoundCLI("claude", "Claude Code", install)
    return FoundCLI("claude", "Claude Code", install, *found)


def found_agent_clis(
    root: Path | None = None, environ: Mapping[str, str] | None = None
) -> tuple[FoundCLI, ...]:
    """Every agent CLI Ralph knows by name, found or not; ``root``: the project, whose
    ``node_modules/.bin`` may hold one."""
    from ralph.runtimes.command import PRESETS, find_program

    found = [_claude(environ)]
    for name, preset in PRESETS.items():
        install = f"npm install -g {preset.package}"
        path = find_program(preset.program, environ=environ, roots=() if root is None else (root,))
        if path is None:
            found.append(FoundCLI(name, preset.title, install))
            continue
        version = _package_version(path, preset.package) or _asked_version(path)
        found.append(FoundCLI(name, preset.title, install, path, version))
    return tuple(found)
