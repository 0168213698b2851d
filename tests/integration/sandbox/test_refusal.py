"""Where bubblewrap cannot start, agents and the test command are refused in one line
naming both ways out; with ``allow_unsandboxed = true`` they run unconfined, and Ralph
says so once."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from ralph.config import AgentSettings
from ralph.errors import AgentUnusable, ConfigError
from ralph.phases._branches import run_tests
from ralph.runtimes import AgentBrief, AgentStatus, Limits, open_runtime
from ralph.sandbox import probe

WAYS_OUT = (
    "install bubblewrap (apt-get install bubblewrap), or set allow_unsandboxed = true in "
    "ralph.toml (or RALPH_ALLOW_UNSANDBOXED=true)"
)


def test_probe_says_why_bwrap_is_unavailable(missing):
    assert probe().available is False
    assert probe().reason == "bwrap is not installed"


def test_probe_quotes_bwraps_own_refusal(refused):
    assert probe().reason == (
        "bwrap cannot start here (bwrap: setting up uid map: Permission denied)"
    )


def test_without_bwrap_a_command_agent_is_refused(missing):
    with pytest.raises(ConfigError) as refusal:
        open_runtime("command", AgentSettings(command="codex exec -", format="codex"))
    assert str(refusal.value) == (
        f"agents cannot run sandboxed: bwrap is not installed; {WAYS_OUT} to run agents unconfined"
    )


def test_without_the_sandbox_claude_is_refused_too(refused):
    pytest.importorskip("claude_agent_sdk")
    with pytest.raises(ConfigError, match="agents cannot run sandboxed: bwrap cannot start"):
        open_runtime("claude", environ={"ANTHROPIC_API_KEY": "sk"})


def test_allowed_unconfined_claude_runs_without_its_own_sandbox(refused, warned):
    pytest.importorskip("claude_agent_sdk")
    runtime = open_runtime("claude", environ={"ANTHROPIC_API_KEY": "sk"}, allow_unsandboxed=True)
    assert runtime.sandbox is False  # type: ignore[attr-defined]


def test_with_bubblewrap_claude_runs_in_its_own_sandbox():
    pytest.importorskip("claude_agent_sdk")
    runtime = open_runtime("claude", environ={"ANTHROPIC_API_KEY": "sk"})
    assert runtime.sandbox is True  # type: ignore[attr-defined]


def test_without_the_sandbox_the_test_command_is_refused_before_it_runs(refused, tmp_path):
    with pytest.raises(AgentUnusable) as refusal:
        run_tests("echo ran > ran.txt", tmp_path)
    assert str(refusal.value) == (
        "the test command cannot run sandboxed: bwrap cannot start here (bwrap: setting up "
        f"uid map: Permission denied); {WAYS_OUT} to run the test command unconfined"
    )
    assert isinstance(refusal.value, ConfigError)
    assert not (tmp_path / "ran.txt").exists()


def test_allowed_unconfined_the_test_command_runs_and_ralph_warns_once(
    missing, warned, tmp_path, caplog
):
    outside = tmp_path / "outside.txt"
    work = tmp_path / "work"
    work.mkdir()
    with caplog.at_level(logging.WARNING, logger="ralph.sandbox"):
        for _ in range(2):
            run = run_tests(f"echo ran > {outside}", work, allow_unsandboxed=True)
            assert run.passed, run.output
    assert outside.read_text() == "ran\n"  # unconfined: nothing stopped it
    assert [r.getMessage() for r in caplog.records] == ["agents run unconfined"]


def test_allowed_unconfined_a_command_agent_runs(missing, warned, tmp_path):
    script = tmp_path / "agent"
    script.write_text(f"#!{sys.executable}\nopen('../outside.txt', 'w').write('x')\n")
    script.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    runtime = open_runtime("command", AgentSettings(command=str(script)), allow_unsandboxed=True)
    brief = AgentBrief(
        phase="research",
        role="analyst",
        issues=(),
        instructions="Go.",
        workdir=work,
        tools=(),
        limits=Limits(timeout_seconds=30),
        result_schema={"type": "object"},
    )
    assert runtime.run(brief).status is AgentStatus.OK
    assert Path(tmp_path / "outside.txt").read_text() == "x"
