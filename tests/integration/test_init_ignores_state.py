"""What ``ralph init`` and Ralph's phases keep out of git: its state, not the project's
prompt overrides, which are versioned with the code."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ralph.git import GitRepo, Worktrees

from .conftest import GitProject, RalphCli


def untracked(path: Path) -> set[str]:
    listed = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=path,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    return {line[3:] for line in listed.splitlines() if line.startswith("?? ")}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitProject:
    repo = GitProject(tmp_path / "project")
    monkeypatch.chdir(repo.path)
    return repo


def test_init_ignores_ralphs_state_but_not_its_prompt_overrides(project, ralph_cli: RalphCli):
    assert ralph_cli("init")[0] == 0
    (project.path / ".ralph" / "prompts").mkdir(parents=True)
    (project.path / ".ralph" / "prompts" / "research.md").write_text("$packaged\n")
    (project.path / ".ralph" / "drafts").mkdir()
    (project.path / ".ralph" / "drafts" / "plan.md").write_text("draft\n")
    seen = untracked(project.path)
    assert ".ralph/prompts/research.md" in seen
    assert not {path for path in seen if path.startswith(".ralph/") and "prompts" not in path}


def test_a_phases_scratch_checkout_leaves_the_prompt_overrides_visible_to_git(project):
    (project.path / ".ralph" / "prompts").mkdir(parents=True)
    (project.path / ".ralph" / "prompts" / "plan.md").write_text("$packaged\n")
    with Worktrees(GitRepo(project.path)).scratch("research-1", "main") as scratch:
        assert scratch.exists()
    seen = untracked(project.path)
    assert ".ralph/prompts/plan.md" in seen
    assert not {path for path in seen if path.startswith(".ralph/") and "prompts" not in path}
