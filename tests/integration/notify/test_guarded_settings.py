"""ralph.toml's guarded settings (the notify command, hooks, the test command,
sandbox_env, ...) come from what a person committed, never from a merge Ralph made
without a person: the review's reproduction with the hold forced open (standing in for
any way a change could get merged by Ralph alone), then the next runs. Real git, SQLite,
bubblewrap, real ``ralph`` processes with planted secrets, a real webhook server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ..conftest import GitProject, RalphCli, git, ralph_process
from ..phases.test_control_files_held import diff_of
from .conftest import Webhook, relay

NOTIFY_LINE = '\ncommand = ""\n'
SECRETS = {
    "RALPH_GH_TOKEN": "ghp_PLANTEDGHTOKEN00000000000001",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.example/services/T0A1B2C3D/B0E4F5G6H/SLACKPLANTED",
}
DECISION = "Which way?\n\nTriage: escalate we need a person to choose"


@pytest.fixture
def repo(tmp_path: Path, ralph_cli: RalphCli, monkeypatch: pytest.MonkeyPatch) -> GitProject:
    project = GitProject(tmp_path / "project")
    monkeypatch.chdir(project.path)
    assert ralph_cli("init")[0] == 0
    git(project.path, "add", "-A")
    git(project.path, "commit", "-qm", "Set up Ralph")
    return project  # the checkout stays on main: Ralph's merges land in it


def merged_by_ralph_alone(
    repo: GitProject, ralph_cli: RalphCli, monkeypatch: pytest.MonkeyPatch, new_toml: str
) -> None:
    """An agent's change to ralph.toml merged by Ralph without a person: the hold is
    forced open for this one run, as a bug or a way round it would."""
    body = "Wire up notifications.\n\n" + diff_of(repo.path, "ralph.toml", new_toml)
    code, _, err = ralph_cli("issue", "new", "Wire up notifications", "-e", "XS", "--body", body)
    assert code == 0, err
    with monkeypatch.context() as forced:
        forced.setattr("ralph.phases._control_hold.control_changes", lambda *_: [])
        code, out, err = ralph_cli("hero", "1")
    assert code == 0, out + err
    assert (repo.path / "ralph.toml").read_text() == new_toml  # the person's checkout too


def test_a_notify_command_ralph_merged_alone_never_runs(
    repo: GitProject,
    ralph_cli: RalphCli,
    monkeypatch: pytest.MonkeyPatch,
    webhook: Webhook,
    tmp_path: Path,
) -> None:
    leak = tmp_path / "NOTIFY_PWNED.txt"
    poison = f"env > {leak}; " + relay(repo.path, webhook)
    toml = (repo.path / "ralph.toml").read_text()
    new_toml = toml.replace(NOTIFY_LINE, f"\ncommand = {json.dumps(poison)}\n")
    merged_by_ralph_alone(repo, ralph_cli, monkeypatch, new_toml)

    code, _, err = ralph_cli("issue", "new", "Needs a decision", "-e", "XS", "--body", DECISION)
    assert code == 0, err
    # After #1 and its pull request #2.
    done = ralph_process("hero", "3", cwd=repo.path, env={"RALPH_AGENT": "scripted", **SECRETS})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "needs a person" in done.stdout
    assert ("ralph.toml's notify.command changed since the last run: `` → `env > ") in done.stderr
    assert (
        "by a merge Ralph made without a person: refused, `` stays in force; commit the "
        "change yourself to accept it"
    ) in done.stderr
    assert webhook.received == []
    assert not leak.exists()
    # Said again until a person acts, and by doctor.
    doctor = ralph_process("doctor", cwd=repo.path)
    assert "notify.command changed since the last run" in doctor.stdout
    tried = ralph_process("notify", "test", cwd=repo.path, env=SECRETS)
    assert tried.returncode == 2
    assert "nothing to notify" in tried.stderr
    assert webhook.received == []


def test_a_sandbox_env_ralph_merged_alone_passes_no_secret_to_the_tests(
    repo: GitProject, ralph_cli: RalphCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    toml = (repo.path / "ralph.toml").read_text()
    new_toml = toml.replace("sandbox_env = []", 'sandbox_env = ["RALPH_GH_TOKEN"]')
    merged_by_ralph_alone(repo, ralph_cli, monkeypatch, new_toml)
    # A failing test that prints the token reversed, which no redaction can see.
    probe = repo.path / "leak_test.py"
    probe.write_text("import os\nprint('LEAK', os.environ.get('RALPH_GH_TOKEN', '')[::-1])\n")
    change = diff_of(repo.path, "NOTES.md", "notes\n")
    code, _, err = ralph_cli("issue", "new", "Add notes", "-e", "XS", "--body", change)
    assert code == 0, err
    env = {
        "RALPH_AGENT": "scripted",
        **SECRETS,
        "RALPH_TEST_COMMAND": f"{sys.executable} {probe}; exit 1",
    }
    done = ralph_process("hero", "3", cwd=repo.path, env=env)
    said = done.stdout + done.stderr
    assert "LEAK" in said  # the tests ran and failed, printing what they saw
    assert SECRETS["RALPH_GH_TOKEN"][::-1] not in said
    assert "sandbox_env changed since the last run" in done.stderr


def test_a_persons_own_commit_of_a_guarded_setting_is_accepted_and_said(
    repo: GitProject, ralph_cli: RalphCli, webhook: Webhook
) -> None:
    command = relay(repo.path, webhook)
    toml = (repo.path / "ralph.toml").read_text()
    assert ralph_cli("issue", "new", "Needs a decision", "-e", "XS", "--body", DECISION)[0] == 0
    assert ralph_cli("hero", "1")[0] == 1  # records what is accepted: no notify command
    new_toml = toml.replace(NOTIFY_LINE, f"\ncommand = {json.dumps(command)}\n")
    (repo.path / "ralph.toml").write_text(new_toml)
    git(repo.path, "commit", "-qam", "Tell me when I am needed")
    assert ralph_cli("issue", "new", "Another", "-e", "XS", "--body", DECISION)[0] == 0
    code, _, err = ralph_cli("hero", "2")
    assert code == 1
    assert "ralph.toml's notify.command changed since the last run: `` → `" in err
    assert "(a person's change: accepted)" in err
    assert webhook.wait_for(1)[0]["summary"].startswith("Ralph (project): #2")
    # Said once: the next run compares with what was accepted.
    assert ralph_cli("issue", "new", "Third", "-e", "XS", "--body", DECISION)[0] == 0
    _, _, err = ralph_cli("hero", "3")
    assert "changed since the last run" not in err
