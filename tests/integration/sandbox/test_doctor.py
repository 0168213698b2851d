"""``ralph doctor`` says how agents are confined, or why they cannot be and what to do;
a run allowed to go unconfined says so once."""

from __future__ import annotations

import os

import pytest

from ralph.cli import main
from ralph.demo import create_sample_repository
from ralph.sandbox import probe


@pytest.fixture
def ralph(monkeypatch, capsys):
    """``ralph ARGS`` in-process, with simulated agents: (exit code, stdout, stderr)."""
    for variable in [v for v in os.environ if v.startswith("RALPH_")]:
        monkeypatch.delenv(variable)
    monkeypatch.setenv("RALPH_AGENT", "scripted")
    monkeypatch.setenv("COLUMNS", "200")

    def run(*args: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as info:
            main(list(args))
        out, err = capsys.readouterr()
        code = info.value.code or 0
        assert isinstance(code, int)
        return code, out, err

    return run


@pytest.fixture
def sample(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(create_sample_repository(tmp_path / "sample"))


def test_doctor_shows_the_sandbox_agents_run_in(ralph, sample):
    if not probe().available:
        pytest.skip(probe().reason)
    ralph("init")
    code, out, _ = ralph("doctor")
    assert code == 0
    assert (
        f"✓ sandbox: {probe().version} (agents write only to their worktree; tests without network)"
    ) in out.splitlines()


def test_doctor_says_when_the_tests_have_network(ralph, sample, monkeypatch):
    if not probe().available:
        pytest.skip(probe().reason)
    ralph("init")
    monkeypatch.setenv("RALPH_SANDBOX_NETWORK", "on")
    _, out, _ = ralph("doctor")
    assert "agents write only to their worktree; tests with network)" in out


def test_doctor_fails_when_the_sandbox_cannot_start(ralph, sample, refused):
    ralph("init")
    code, out, _ = ralph("doctor")
    assert code == 1
    assert (
        "✗ sandbox: bwrap cannot start here (bwrap: setting up uid map: Permission denied); "
        "install bubblewrap (apt-get install bubblewrap) or set allow_unsandboxed = true"
    ) in out.splitlines()
    assert "✓ tracker: local" in out  # the other checks still ran


def test_allowed_unconfined_doctor_warns_and_a_run_says_so_once(
    ralph, sample, refused, warned, monkeypatch
):
    ralph("init")
    monkeypatch.setenv("RALPH_ALLOW_UNSANDBOXED", "true")
    code, out, _ = ralph("doctor")
    assert code == 0
    assert "! sandbox: unavailable, agents run unconfined (allow_unsandboxed = true)" in out
    ralph("issue", "new", "Add a farewell", "--state", "Research Needed", "--estimate", "XS")
    code, out, err = ralph("run", "research", "1")
    assert code == 0, out + err
    assert err.count("Warning: agents and the test command run unconfined") == 1
