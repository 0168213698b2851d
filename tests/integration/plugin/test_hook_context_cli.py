"""``ralph hook context set``: the gates a skill turns on name an issue the tracker has."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ralph.plugin import find_context

from ..conftest import RALPH, GitProject, RalphCli, ralph_environment


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ralph_cli: RalphCli) -> Path:
    repo = GitProject(tmp_path / "project")
    monkeypatch.chdir(repo.path)
    assert ralph_cli("init")[0] == 0
    assert ralph_cli("issue", "new", "Add a farewell", "-e", "XS")[0] == 0
    return repo.path


def test_gates_for_an_issue_the_tracker_does_not_have_are_refused_and_none_set(
    project: Path, ralph_cli: RalphCli
):
    code, _, err = ralph_cli("hook", "context", "set", "research", "99")
    assert code == 2
    assert err.strip() == "ralph: error: Issue #99 not found"
    assert not (project / ".ralph" / "hook-context.json").exists()
    assert "No hook context" in ralph_cli("hook", "context", "show")[1]


def test_gates_for_an_issue_the_tracker_has_are_set(project: Path, ralph_cli: RalphCli):
    code, out, _ = ralph_cli("hook", "context", "set", "research", "1")
    assert code == 0
    assert "research #1" in out
    assert "research #1" in ralph_cli("hook", "context", "show")[1]


def test_gates_for_a_sub_issue_know_its_epic_whose_worktree_it_shares(
    project: Path, ralph_cli: RalphCli
):
    assert ralph_cli("issue", "new", "Say goodbye", "-e", "XS", "--parent", "1")[0] == 0
    assert ralph_cli("hook", "context", "set", "implement", "2")[0] == 0
    found = find_context(project)
    assert found is not None
    assert (found.context.issue, found.context.epic) == (2, 1)


def hook(project: Path, tool: str, tool_input: dict[str, str]) -> str:
    """``ralph hook pre-tool-use`` as Claude Code runs it: the event on stdin, the
    project in CLAUDE_PROJECT_DIR; its decision ("deny" or "") from stdout."""
    event = {"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input}
    done = subprocess.run(
        [RALPH, "hook", "pre-tool-use"],
        cwd=project,
        input=json.dumps({**event, "cwd": str(project)}),
        env=ralph_environment({"CLAUDE_PROJECT_DIR": str(project)}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout) if done.stdout.strip() else {}
    return str(said.get("hookSpecificOutput", {}).get("permissionDecision", ""))


def test_the_reviews_guard_bypasses_are_denied_by_the_real_hook(project: Path, ralph_cli: RalphCli):
    worktrees = project / "worktrees"
    assert ralph_cli("hook", "context", "set", "implement", "1")[0] == 0
    assert hook(project, "Write", {"file_path": f"{worktrees}/GH-1/x.py"}) == ""
    assert hook(project, "Write", {"file_path": f"{worktrees}/GH-1/.git"}) == "deny"
    assert hook(project, "Write", {"file_path": f"{worktrees}/GH-01/x.py"}) == "deny"
    for command in ("$(echo ralph) issue move 1 Done", "eval 'ralph issue move 1 Done'"):
        assert hook(project, "Bash", {"command": command}) == "deny", command
    assert ralph_cli("hook", "context", "set", "implement")[0] == 0  # no issue named
    for folder in ("GH-999", "anything"):
        assert hook(project, "Write", {"file_path": f"{worktrees}/{folder}/x.py"}) == "deny"
