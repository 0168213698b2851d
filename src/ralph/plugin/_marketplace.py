"""The marketplace ``ralph plugin install`` hands Claude Code: a copy of the packaged
plugin in Ralph's data folder, with the ``ralph`` it was installed from recorded beside
its launcher (``bin/ralph``), so its hooks, MCP server and skills reach that ``ralph``
whatever PATH Claude Code was started with. Generated, because an installed package has
no repository root (the repository's own ``.claude-plugin/marketplace.json`` serves a
clone) and its folder may be read-only."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ralph.plugin._path import PLUGIN_NAME, plugin_path

__all__ = [
    "MARKETPLACE_NAME",
    "RECORDED_RALPH",
    "marketplace_folder",
    "this_ralph",
    "write_marketplace",
]

#: The marketplace's name in Claude Code: the plugin installs as ``ralph-hero@ralph``.
MARKETPLACE_NAME = "ralph"
#: Next to the launcher: the absolute path of the ``ralph`` it runs.
RECORDED_RALPH = Path("bin") / "ralph-path"


def marketplace_folder(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/ralph/claude-marketplace`` (``~/.local/share`` without it)."""
    environ = os.environ if environ is None else environ
    data = environ.get("XDG_DATA_HOME") or str(Path(environ.get("HOME", "~")) / ".local/share")
    return Path(data).expanduser() / "ralph" / "claude-marketplace"


def this_ralph() -> Path | None:
    """The ``ralph`` command of the running installation: the console script beside its
    interpreter (a virtual environment's, uv's or pipx's ``bin``), else the command this
    process was started as. None when neither is a ``ralph`` file (``python -m ralph``
    from a source tree)."""
    beside = Path(sys.executable).parent / "ralph"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside.absolute()
    started = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if started is not None and started.name == "ralph" and started.is_file():
        return started.resolve()
    return None


def write_marketplace(folder: Path, ralph: Path, version: str) -> Path:
    """Write the marketplace into ``folder`` (replacing what is there): the plugin at
    ``version`` (Claude Code keys its copy by version) running ``ralph``. Built beside
    it and moved into place, so a failure leaves the previous one whole."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".claude-marketplace-", dir=folder.parent))
    try:
        plugin = staging / PLUGIN_NAME
        shutil.copytree(plugin_path(), plugin, ignore=shutil.ignore_patterns("__pycache__"))
        (plugin / "bin" / "ralph").chmod(0o755)
        (plugin / RECORDED_RALPH).write_text(f"{ralph}\n")
        manifest_path = plugin / ".claude-plugin" / "plugin.json"
        manifest = json.loads(manifest_path.read_text())
        manifest["version"] = version
        manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
        (staging / ".claude-plugin").mkdir()
        (staging / ".claude-plugin" / "marketplace.json").write_text(
            json.dumps(_catalog(manifest["description"]), indent=2) + "\n"
        )
        old = folder.with_name(folder.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if folder.exists():
            folder.rename(old)
        staging.rename(folder)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder


def _catalog(description: str) -> dict[str, object]:
    return {
        "name": MARKETPLACE_NAME,
        "owner": {"name": "Ralph contributors"},
        "metadata": {"description": "Ralph's Claude Code plugin, from the installed package."},
        "plugins": [
            {"name": PLUGIN_NAME, "source": f"./{PLUGIN_NAME}", "description": description}
        ],
    }
