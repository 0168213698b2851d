"""Notifications from real ``ralph hero`` runs with the simulated agents, received by a
real webhook server on 127.0.0.1 and a real command: an escalation and the run's end
arrive, with the secrets of the environment absent; a webhook that never answers does
not hold the run up by more than the notifier's bound."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ..conftest import GitProject, ralph_process
from .conftest import Webhook, relay

pytestmark = pytest.mark.slow

GH_TOKEN = "ghp_PLANTEDtoken1234567890abcdefXYZ"
API_KEY = "sk-ant-PLANTEDkey0987654321zyxwvuQ"
#: A diff whose file does not exist: the simulated implementer escalates, naming it.
BROKEN_DIFF = f"```diff\n--- a/{GH_TOKEN}.py\n+++ b/{GH_TOKEN}.py\n@@ -1 +1 @@\n-old\n+new\n```\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    project = GitProject(tmp_path / "project")
    done = ralph_process("init", cwd=project.path)
    assert done.returncode == 0, done.stderr
    return project.path


def ralph(repo: Path, *args: str, **settings: str) -> tuple[int, str, float]:
    env = {"RALPH_AGENT": "scripted", "RALPH_GH_TOKEN": GH_TOKEN, "ANTHROPIC_API_KEY": API_KEY}
    started = time.monotonic()
    done = ralph_process(*args, cwd=repo, env={**env, **settings})
    return done.returncode, done.stdout + done.stderr, time.monotonic() - started


def test_an_escalation_and_the_runs_end_reach_the_webhook_without_the_planted_secrets(
    repo: Path, webhook: Webhook
) -> None:
    title = f"Change the file {API_KEY}"
    ralph(repo, "issue", "new", title, "-e", "XS", "--body", BROKEN_DIFF)
    ralph(repo, "hero", "1", RALPH_NOTIFY_WEBHOOK=webhook.url)

    received = webhook.wait_for(2)
    by_event = {body["event"]: body for body in received}
    escalation = by_event["escalated"]
    assert escalation["issue"] == 1
    assert escalation["run"] == 1  # the run it happened in, as its run_ended names it
    assert "does not apply" in escalation["reason"]
    assert escalation["text"].startswith(f"Ralph ({repo.name}): #1 Change the file ")
    assert "needs a person (implement in run 1)" in escalation["text"]
    ended = by_event["run_ended"]
    assert ended["run"] == 1
    assert ended["issue"] == 1
    assert ended["outcome"] == "needs_person"  # its issue escalated
    assert ended["text"] == ended["summary"]
    raw = b"".join(webhook.raw).decode()
    assert GH_TOKEN not in raw
    assert API_KEY not in raw
    # The secrets were there to leak: the reason named the file, the title the key.
    assert "***.py" in escalation["reason"]
    assert "***" in escalation["text"]


def test_a_command_gets_the_event_on_stdin_and_its_summary_as_dollar_1(
    repo: Path, webhook: Webhook
) -> None:
    ralph(repo, "issue", "new", "Make it faster", "-e", "M", "--body", "It is slow. Fix it.")
    _, said, _ = ralph(repo, "hero", "1", RALPH_NOTIFY_COMMAND=relay(repo, webhook))
    got = webhook.wait_for(2)
    events = [json.loads(g["stdin"]) for g in got]
    assert [e["event"] for e in events] == ["escalated", "run_ended"], said
    assert [g["summary"] for g in got] == [e["summary"] for e in events]
