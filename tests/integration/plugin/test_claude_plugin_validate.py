"""Claude Code's own validator accepts both manifests of the plugin folder, and the
marketplace ``ralph plugin install`` writes (a real Claude Code process each)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ralph.plugin import plugin_path, write_marketplace

REPOSITORY = Path(__file__).resolve().parents[3]
PLUGIN = plugin_path()


def _claude() -> Path:
    sdk = pytest.importorskip("claude_agent_sdk")
    cli = Path(sdk.__file__).parent / "_bundled" / "claude"
    if not cli.is_file():
        found = shutil.which("claude")
        if found is None:
            pytest.skip("no Claude Code CLI")
        return Path(found)
    return cli


def written_marketplace(folder: Path) -> Path:
    return write_marketplace(folder / "written", Path("/opt/ralph/bin/ralph"), "1.2.3")


@pytest.mark.parametrize("where", ["plugin", "marketplace", "written"])
def test_claude_plugin_validate_accepts_the_plugin_and_the_marketplaces(where, tmp_path):
    folder = {"plugin": PLUGIN, "marketplace": REPOSITORY}.get(where) or written_marketplace(
        tmp_path
    )
    done = subprocess.run(
        [str(_claude()), "plugin", "validate", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={
            "HOME": str(tmp_path),
            "CLAUDE_CONFIG_DIR": str(tmp_path / ".claude"),
            "PATH": "/usr/bin:/bin",
            "DISABLE_AUTOUPDATER": "1",
        },
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Validation passed" in done.stdout
