"""The notify command runs confined like the test command (real bubblewrap): it gets the
test command's allow-listed environment, never Ralph's tokens, a webhook URL or a model
key, and writes nowhere but its scratch folder and a private /tmp; and a ``ralph hero``
whose escalation runs it leaks none of the planted secrets to a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.config import Config
from ralph.notify import EventKind, NotifyEvent, run_command
from ralph.project import notify_sandbox
from ralph.sandbox import probe

from ..conftest import GitProject, ralph_process
from .conftest import Webhook, relay

pytestmark = pytest.mark.skipif(not probe().available, reason="bubblewrap cannot start here")

SECRETS = {
    "RALPH_GH_TOKEN": "ghp_PLANTEDGHTOKEN00000000000001",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.example/services/T0A1B2C3D/B0E4F5G6H/SLACKPLANTED",
    "ANTHROPIC_API_KEY": "sk-ant-PLANTEDkey0987654321zyxwvuQ",
    "OPENAI_API_KEY": "sk-PLANTEDopenai1234567890",
}
EVENT = NotifyEvent(event=EventKind.ESCALATED, summary="Ralph (shop): #7 needs a person", issue=7)


def test_the_notify_command_sees_no_secret_and_writes_nowhere_outside(
    tmp_path: Path, webhook: Webhook, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    project = tmp_path / "project"
    project.mkdir()
    outside, home_file = tmp_path / "NOTIFY_PWNED.txt", Path.home() / ".ralph-notify-pwned"
    writes = f"echo x > {outside}; echo x > {project}/in-project.txt; echo x > {home_file}; "
    sandbox = notify_sandbox(Config(root=project))
    command = writes + "echo x > /tmp/private.txt && " + relay(project, webhook)
    sent = run_command(command, EVENT, timeout=20, cwd=project, sandbox=sandbox)
    assert sent.ok, sent.detail
    (got,) = webhook.wait_for(1)
    assert json.loads(got["stdin"])["issue"] == 7
    seen = json.dumps(got["env"])
    for name, value in SECRETS.items():
        assert name not in got["env"]
        assert value not in seen
    assert "PATH" in got["env"]  # what a program needs to run is there
    assert not outside.exists()
    assert not (project / "in-project.txt").exists()
    assert not home_file.exists()


def test_a_persons_sandbox_env_reaches_the_notify_command(
    tmp_path: Path, webhook: Webhook, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHANNEL", "#builds")
    sandbox = notify_sandbox(Config(root=tmp_path, sandbox_env=("CHANNEL",)))
    assert run_command(
        relay(tmp_path, webhook), EVENT, timeout=20, cwd=tmp_path, sandbox=sandbox
    ).ok
    assert webhook.wait_for(1)[0]["env"]["CHANNEL"] == "#builds"


def test_a_hero_escalation_runs_the_notify_command_confined(tmp_path: Path) -> None:
    project = GitProject(tmp_path / "project")
    assert ralph_process("init", cwd=project.path).returncode == 0
    leak = tmp_path / "NOTIFY_PWNED.txt"
    env = {
        "RALPH_AGENT": "scripted",
        **SECRETS,
        "RALPH_NOTIFY_COMMAND": f"env > {leak}; echo unconfined-write-ok >> {leak}",
    }
    body = "Which way?\n\nTriage: escalate we need a person to choose"
    ralph_process("issue", "new", "Needs a decision", "-e", "XS", "--body", body, cwd=project.path)
    done = ralph_process("hero", "1", cwd=project.path, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "needs a person" in done.stdout
    assert not leak.exists()
