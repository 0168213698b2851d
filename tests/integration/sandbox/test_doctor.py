"""``ralph doctor`` says which platform path applies: how agents are confined, or why
they cannot be and what to do; a run allowed to go unconfined says so once."""

from __future__ import annotations

import pytest

from ralph.demo import create_sample_repository
from ralph.sandbox import probe


@pytest.fixture
def sample(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(create_sample_repository(tmp_path / "sample"))


def test_doctor_shows_the_sandbox_agents_run_in(ralph_cli, sample):
    if not probe().available:
        pytest.skip(probe().reason)
    ralph_cli("init")
    code, out, _ = ralph_cli("doctor")
    assert code == 0
    assert (
        f"✓ platform: Linux with {probe().version}: agents and tests run sandboxed "
        "(agents write only to their worktree; tests without network)"
    ) in out.splitlines()


def test_doctor_says_when_the_tests_have_network(ralph_cli, sample, monkeypatch):
    if not probe().available:
        pytest.skip(probe().reason)
    ralph_cli("init")
    monkeypatch.setenv("RALPH_SANDBOX_NETWORK", "on")
    _, out, _ = ralph_cli("doctor")
    assert "agents write only to their worktree; tests with network)" in out


def test_doctor_fails_when_the_sandbox_cannot_start(ralph_cli, sample, refused):
    ralph_cli("init")
    code, out, _ = ralph_cli("doctor")
    assert code == 1
    assert (
        "✗ platform: Linux without a working bubblewrap (bwrap cannot start here (bwrap: "
        "setting up uid map: Permission denied)): agents and the test command (so implement "
        "and merge) are refused; install bubblewrap (apt-get install bubblewrap), or set "
        "RALPH_ALLOW_UNSANDBOXED=true (or allow_unsandboxed = true in ralph.toml) at your "
        "own risk"
    ) in out.splitlines()
    assert "✓ tracker: local" in out  # the other checks still ran


def test_allowed_unconfined_doctor_warns_and_a_run_says_so_once(
    ralph_cli, sample, refused, warned, monkeypatch
):
    ralph_cli("init")
    monkeypatch.setenv("RALPH_ALLOW_UNSANDBOXED", "true")
    code, out, _ = ralph_cli("doctor")
    assert code == 0
    assert (
        "! platform: Linux without a working bubblewrap (bwrap cannot start here (bwrap: "
        "setting up uid map: Permission denied)): agents and the test command run unconfined "
        "(allow_unsandboxed = true) and can write anywhere you can; install bubblewrap to "
        "confine them"
    ) in out.splitlines()
    ralph_cli("issue", "new", "Add a farewell", "--state", "Research Needed", "--estimate", "XS")
    code, out, err = ralph_cli("run", "research", "1")
    assert code == 0, out + err
    assert err.count("Warning: agents and the test command run unconfined") == 1
