"""The platform path ``ralph doctor`` names: Linux with bubblewrap, Linux without it,
and macOS (or any other system), where only agents and the test command are refused."""

from __future__ import annotations

import pytest

from ralph.sandbox import SandboxStatus, platform_path

WORKING = SandboxStatus(True, version="bubblewrap 0.11.0")
MISSING = SandboxStatus(False, reason="bwrap is not installed")


def test_linux_with_bubblewrap_runs_agents_sandboxed():
    path = platform_path("Linux", WORKING, allow_unsandboxed=False)
    assert (path.usable, path.confined) == (True, True)
    assert path.line == "Linux with bubblewrap 0.11.0: agents and tests run sandboxed"


def test_linux_without_bubblewrap_says_to_install_it_or_take_the_risk():
    path = platform_path("Linux", MISSING, allow_unsandboxed=False)
    assert (path.usable, path.confined) == (False, False)
    assert path.line.startswith("Linux without a working bubblewrap (bwrap is not installed)")
    assert "apt-get install bubblewrap" in path.line
    assert "RALPH_ALLOW_UNSANDBOXED=true" in path.line
    assert "at your own risk" in path.line


def test_linux_without_bubblewrap_allowed_unconfined_is_usable_but_not_confined():
    path = platform_path("Linux", MISSING, allow_unsandboxed=True)
    assert (path.usable, path.confined) == (True, False)
    assert "run unconfined" in path.line


@pytest.mark.parametrize(("system", "name"), [("Darwin", "macOS"), ("FreeBSD", "FreeBSD")])
def test_without_bubblewrap_anywhere_says_what_works_and_what_is_refused(system, name):
    path = platform_path(system, MISSING, allow_unsandboxed=False)
    assert (path.usable, path.confined) == (False, False)
    assert path.line.startswith(f"{name}, which has no bubblewrap (Linux only): ")
    assert "ralph demo work" in path.line
    assert "agents and the test command (so implement and merge) are refused" in path.line
    assert "Linux VM or container" in path.line
    assert "RALPH_ALLOW_UNSANDBOXED=true" in path.line


def test_macos_allowed_unconfined_is_usable():
    path = platform_path("Darwin", MISSING, allow_unsandboxed=True)
    assert (path.usable, path.confined) == (True, False)
    assert path.line.startswith("macOS, which has no bubblewrap (Linux only): ")
    assert "run unconfined" in path.line
