"""The plugin's launcher (``bin/ralph``), which its hooks, MCP server and skills run
``ralph`` through: the ralph ``ralph plugin install`` recorded beside it, else another
``ralph`` on the PATH (never itself, when Claude Code puts the plugin's bin/ there), else
one line saying neither is there."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ralph.plugin import plugin_path

LAUNCHER = plugin_path() / "bin" / "ralph"
BARE_PATH = "/usr/bin:/bin"


def fake_ralph(folder: Path, says: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "ralph"
    script.write_text(f'#!/bin/sh\necho {says} "$@"\n')
    script.chmod(0o755)
    return script


def launch(launcher: Path, *args: str, path: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", str(launcher), *args],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": path, **env},
        check=False,
    )


@pytest.fixture
def plugin_bin(tmp_path: Path) -> Path:
    """A copy of the plugin's bin/, as ``ralph plugin install`` makes one."""
    folder = tmp_path / "plugin" / "bin"
    folder.mkdir(parents=True)
    shutil.copy2(LAUNCHER, folder / "ralph")
    return folder


def test_the_packaged_launcher_is_executable():
    assert os.access(LAUNCHER, os.X_OK)


def test_the_recorded_ralph_runs_with_ralph_absent_from_the_path(plugin_bin, tmp_path):
    recorded = fake_ralph(tmp_path / "venv" / "bin", "recorded")
    (plugin_bin / "ralph-path").write_text(f"{recorded}\n")
    done = launch(plugin_bin / "ralph", "hook", "pre-tool-use", "a b", path=BARE_PATH)
    assert (done.returncode, done.stdout) == (0, "recorded hook pre-tool-use a b\n")


def test_the_recorded_ralph_comes_before_one_on_the_path(plugin_bin, tmp_path):
    recorded = fake_ralph(tmp_path / "venv" / "bin", "recorded")
    other = fake_ralph(tmp_path / "other", "other")
    (plugin_bin / "ralph-path").write_text(f"{recorded}\n")
    done = launch(plugin_bin / "ralph", "mcp", path=f"{other.parent}:{BARE_PATH}")
    assert done.stdout == "recorded mcp\n"


def test_without_a_record_the_ralph_on_the_path_runs_and_never_the_launcher_itself(
    plugin_bin, tmp_path
):
    other = fake_ralph(tmp_path / "other", "other")
    # Claude Code puts a plugin's bin/ on the PATH of its Bash tool: first, here.
    done = subprocess.run(
        ["ralph", "status"],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": f"{plugin_bin}:{other.parent}:{BARE_PATH}"},
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "other status\n")


def test_a_recorded_ralph_that_is_gone_falls_back_to_the_path(plugin_bin, tmp_path):
    other = fake_ralph(tmp_path / "other", "other")
    (plugin_bin / "ralph-path").write_text(f"{tmp_path / 'uninstalled' / 'ralph'}\n")
    done = launch(plugin_bin / "ralph", "status", path=f"{other.parent}:{BARE_PATH}")
    assert done.stdout == "other status\n"


def test_with_no_ralph_anywhere_it_says_so_in_one_line_naming_the_fix(plugin_bin, tmp_path):
    gone = tmp_path / "uninstalled" / "ralph"
    (plugin_bin / "ralph-path").write_text(f"{gone}\n")
    done = launch(plugin_bin / "ralph", "mcp", path=f"{plugin_bin}:{BARE_PATH}")
    assert done.returncode == 127
    assert done.stdout == ""
    assert done.stderr == (
        f"ralph-hero plugin: cannot find ralph: not at {gone} (recorded by ralph plugin "
        "install) and not on the PATH. Install Ralph, then run: ralph plugin install\n"
    )


def test_asked_which_it_names_the_ralph_it_would_run_and_runs_nothing(plugin_bin, tmp_path):
    recorded = fake_ralph(tmp_path / "venv" / "bin", "recorded")
    (plugin_bin / "ralph-path").write_text(f"{recorded}\n")
    done = launch(plugin_bin / "ralph", "mcp", path=BARE_PATH, RALPH_PLUGIN_WHICH="1")
    assert (done.returncode, done.stdout) == (0, f"{recorded}\n")
