"""The Claude Code that claude-agent-sdk bundles is found, with its version, without
importing the package: ``ralph doctor`` and ``ralph login`` ask where it is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ralph.runtimes._claude_cli import bundled_claude, claude_cli
from ralph.runtimes._found import found_agent_clis

pytestmark = pytest.mark.timeout(60)


def test_the_bundled_cli_and_its_version_are_the_ones_the_package_itself_names() -> None:
    import claude_agent_sdk
    from claude_agent_sdk._cli_version import __cli_version__

    found = bundled_claude()
    assert found is not None
    assert found == (
        Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude",
        __cli_version__,
    )


def test_finding_it_leaves_the_package_unimported() -> None:
    script = (
        "import json, sys\n"
        "from ralph.runtimes._claude_cli import bundled_claude\n"
        "from ralph.runtimes._found import found_agent_clis\n"
        "found = bundled_claude()\n"
        "clis = found_agent_clis(environ={'PATH': ''})\n"
        "print(json.dumps([str(found[0]), found[1], clis[0].version,"
        " 'claude_agent_sdk' in sys.modules]))\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=50, check=True
    )
    path, version, reported, imported = json.loads(ran.stdout)
    assert Path(path).name == "claude"
    assert version
    assert reported == version
    assert imported is False


def test_off_the_path_login_uses_the_bundled_cli() -> None:
    found = bundled_claude()
    assert found is not None
    assert claude_cli({"PATH": ""}) == found[0]


def test_a_claude_on_the_path_wins_over_the_bundled_one(tmp_path: Path) -> None:
    own = tmp_path / "claude"
    own.write_text("#!/bin/sh\necho '9.9.9 (Claude Code)'\n")
    own.chmod(0o755)
    assert claude_cli({"PATH": str(tmp_path)}) == own
    (cli,) = [c for c in found_agent_clis(environ={"PATH": str(tmp_path)}) if c.name == "claude"]
    assert (cli.path, cli.version) == (own, "9.9.9")
