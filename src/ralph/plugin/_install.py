"""``ralph plugin install`` and ``ralph plugin check``: the packaged plugin installed
through Claude Code's own CLI, and what Claude Code then sees and runs."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import NeedsPerson
from ralph.plugin._claude_plugins import ClaudePlugins, InstalledPlugin
from ralph.plugin._marketplace import (
    MARKETPLACE_NAME,
    RECORDED_RALPH,
    marketplace_folder,
    this_ralph,
    write_marketplace,
)
from ralph.plugin._path import PLUGIN_NAME

__all__ = ["PLUGIN_ID", "SCOPES", "PluginCheck", "check_plugin", "install_plugin"]

PLUGIN_ID = f"{PLUGIN_NAME}@{MARKETPLACE_NAME}"
#: Where Claude Code records an installation: the person's, the project's settings
#: (committed), or the project's local settings (not committed).
SCOPES = ("user", "project", "local")
_NO_CLAUDE = (
    "Claude Code is not installed: install it (https://claude.com/claude-code, or "
    "make install in a clone of Ralph, which bundles it), then run ralph plugin install"
)
_REINSTALL = "run: ralph plugin install"


@dataclass(frozen=True)
class PluginCheck:
    """One line of ``ralph plugin check``: what was found, and the fix when it is wrong."""

    ok: bool
    line: str
    fix: str = ""  # with ``ok``, advice


def _claude(environ: Mapping[str, str]) -> ClaudePlugins:
    from ralph.runtimes import claude_cli

    cli = claude_cli(environ)
    if cli is None:
        raise NeedsPerson(_NO_CLAUDE)
    return ClaudePlugins(cli, environ)


def install_plugin(
    scope: str = "user",
    *,
    ralph: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[InstalledPlugin, Path]:
    """Write the marketplace for ``ralph`` (this installation's, by default), add it to
    Claude Code and install or update the plugin from it in ``scope``: the plugin as
    Claude Code lists it, and the ``ralph`` it runs."""
    from ralph import __version__

    environ = os.environ if environ is None else environ
    if scope not in SCOPES:
        raise NeedsPerson(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
    ralph = this_ralph() if ralph is None else ralph
    if ralph is None:
        raise NeedsPerson(
            "this ralph runs from a source tree, not an installed command: install Ralph "
            "(make install, or pip install .) and run its ralph plugin install"
        )
    claude = _claude(environ)
    folder = write_marketplace(marketplace_folder(environ), ralph, __version__)
    claude.add_marketplace(folder, MARKETPLACE_NAME, scope)
    claude.install(PLUGIN_ID, scope)
    installed = _find(claude.installed(), scope)
    if installed is None:
        raise NeedsPerson(f"Claude Code does not list {PLUGIN_ID} after installing it")
    return installed, ralph


def _find(plugins: list[InstalledPlugin], scope: str | None = None) -> InstalledPlugin | None:
    ours = [p for p in plugins if p.plugin_id.split("@")[0] == PLUGIN_NAME]
    ours.sort(key=lambda p: (p.scope != scope, p.plugin_id != PLUGIN_ID, not p.enabled))
    return ours[0] if ours else None


def check_plugin(environ: Mapping[str, str] | None = None) -> list[PluginCheck]:
    """Whether Claude Code has the plugin, installed and enabled, and which ``ralph`` (in
    which version) its hooks and MCP server run, with ``environ``'s PATH."""
    environ = os.environ if environ is None else environ
    try:
        claude = _claude(environ)
    except NeedsPerson as error:
        return [PluginCheck(False, "Claude Code: not found", str(error))]
    checks = [PluginCheck(True, f"Claude Code {claude.version()} ({claude.cli})")]
    plugin = _find(claude.installed())
    if plugin is None:
        return [*checks, PluginCheck(False, f"plugin {PLUGIN_NAME}: not installed", _REINSTALL)]
    where = f"{plugin.plugin_id} {plugin.version} (scope {plugin.scope}, {plugin.folder})"
    if plugin.enabled:
        checks.append(PluginCheck(True, f"plugin {where}: enabled"))
    else:
        fix = f"run: claude plugin enable {plugin.plugin_id}"
        checks.append(PluginCheck(False, f"plugin {where}: disabled", fix))
    return [*checks, _reach(plugin.folder, environ)]


def _reach(folder: Path, environ: Mapping[str, str]) -> PluginCheck:
    launcher = folder / "bin" / "ralph"
    if not launcher.is_file():
        return PluginCheck(
            False,
            "hooks and MCP server: this plugin runs `ralph` from Claude Code's PATH",
            _REINSTALL,
        )
    which = _output(["sh", str(launcher)], {**environ, "RALPH_PLUGIN_WHICH": "1"})
    if which.returncode != 0:
        refused = which.stderr.strip() or "no ralph found"
        return PluginCheck(False, f"hooks and MCP server: {refused}", _REINSTALL)
    ralph = which.stdout.strip()
    record = folder / RECORDED_RALPH
    recorded = record.is_file() and record.read_text().strip() == ralph
    how = "recorded by ralph plugin install" if recorded else "found on this PATH"
    version = _output([ralph, "--version"], environ)
    said = version.stdout.strip().splitlines()
    if version.returncode != 0 or not said:
        # The last line that says something (click draws its error in a box).
        error = [
            line.strip("│╭╰─ ")
            for line in version.stderr.splitlines()
            if any(c.isalnum() for c in line)
        ] or [f"exit {version.returncode}"]
        line = f"hooks and MCP server run {ralph} ({how}); its --version fails: {error[-1]}"
        return PluginCheck(False, line, f"install Ralph again, then {_REINSTALL}")
    line = f"hooks and MCP server run {ralph} ({how}): {said[-1]}"
    if not recorded:  # works with this PATH; Claude Code may have been started with another
        return PluginCheck(True, line, f"to run it whatever Claude Code's PATH, {_REINSTALL}")
    return PluginCheck(True, line)


def _output(argv: list[str], environ: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            env=dict(environ),
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return subprocess.CompletedProcess(argv, 1, "", str(error))
