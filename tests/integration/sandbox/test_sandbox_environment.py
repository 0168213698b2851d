"""What a confined agent and the test command find in their environment: what they
need to run and what ralph.toml's ``sandbox_env`` names; a secret of a name no list
knows (a chat webhook) reaches neither, and the agents' model keys reach only agents."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from ralph.phases._branches import run_tests
from ralph.runtimes import AgentStatus
from ralph.runtimes.command import CommandRuntime
from ralph.sandbox import probe

from .conftest import implement_brief

pytestmark = pytest.mark.skipif(not probe().available, reason=probe().reason)

WEBHOOK = "https://hooks.example/T000/SLACKPLANTED0013"
PLANTED = {
    "SLACK_WEBHOOK_URL": WEBHOOK,
    "ANTHROPIC_API_KEY": "sk-ant-planted-key",
    "JAVA_HOME": "/opt/planted-java",
}
_DUMP = "import json, os, sys; json.dump(dict(os.environ), open(sys.argv[1], 'w'))"


def agent_sees(machine, sandbox_env: tuple[str, ...] = ()) -> dict[str, str]:
    runtime = CommandRuntime(
        shlex.join([sys.executable, "-c", _DUMP]) + " {result_file}",
        environ={**os.environ, **PLANTED, "HOME": str(machine.home)},
        sandbox=True,
        sandbox_env=sandbox_env,
    )
    brief = implement_brief(machine.worktree)
    result = runtime.run(brief)
    assert result.status is AgentStatus.OK, result.error
    assert isinstance(result.result, dict)
    return result.result


def seen_by_tests(machine, monkeypatch, passed: tuple[str, ...] = ()) -> dict[str, str]:
    for name, value in PLANTED.items():
        monkeypatch.setenv(name, value)
    seen = Path(machine.worktree) / "env.json"
    run = run_tests(
        shlex.join([sys.executable, "-c", _DUMP, str(seen)]), machine.worktree, passed_env=passed
    )
    assert run.passed, run.output
    found: dict[str, str] = json.loads(seen.read_text())
    return found


def test_a_planted_webhook_url_reaches_neither_agent_nor_test_command(machine, monkeypatch):
    assert "SLACK_WEBHOOK_URL" not in agent_sees(machine)
    assert "SLACK_WEBHOOK_URL" not in seen_by_tests(machine, monkeypatch)


def test_the_agent_keeps_its_model_key_and_the_test_command_gets_none(machine, monkeypatch):
    assert agent_sees(machine)["ANTHROPIC_API_KEY"] == "sk-ant-planted-key"
    assert "ANTHROPIC_API_KEY" not in seen_by_tests(machine, monkeypatch)


def test_both_get_what_they_need_to_run_and_what_sandbox_env_names(machine, monkeypatch):
    agent = agent_sees(machine, ("JAVA_HOME",))
    tests = seen_by_tests(machine, monkeypatch, ("JAVA_HOME",))
    for seen in (agent, tests):
        assert seen["JAVA_HOME"] == "/opt/planted-java"
        assert seen["PATH"] == os.environ["PATH"]
    assert agent["HOME"] == str(machine.home)
