"""Ralph builds only on branches it made (or a person let it adopt): a person's own
``feature/GH-N`` is refused at once, never merged unreviewed."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from ralph.workflow import WorkflowState

from ..cli_project import farewell_project, state_of, through
from ..conftest import ralph_process


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()


def persons_work_in_progress(repo: Path, branch: str) -> None:
    """A branch of the person's with a commit nobody reviewed, left without a worktree."""
    wip = repo.parent / "wip"
    git(repo, "branch", branch, "main")
    git(repo, "worktree", "add", "-q", str(wip), branch)
    (wip / "experiment.txt").write_text("DO NOT SHIP: half-done experiment\n")
    git(wip, "add", "experiment.txt")
    git(wip, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "WIP: not ready")
    git(repo, "worktree", "remove", str(wip))


def test_a_persons_branch_of_the_same_name_is_refused_in_one_line(tmp_path):
    repo, number = farewell_project(tmp_path / "greet")
    through(repo, number, "research", "plan", "approve")
    branch = f"feature/GH-{number}"
    persons_work_in_progress(repo, branch)
    tip, main = git(repo, "rev-parse", branch), git(repo, "rev-parse", "main")
    refused = ralph_process("run", "implement", str(number), cwd=repo)
    assert refused.returncode == 2
    assert refused.stdout == ""
    (line,) = refused.stderr.strip().splitlines()
    assert f"{branch} already exists with 1 commit(s) Ralph did not make" in line
    assert "WIP: not ready" in line
    assert f"git branch -m {branch} NEW-NAME" in line
    assert f"--adopt-branch {branch} on ralph run implement {number}" in line
    assert (git(repo, "rev-parse", branch), git(repo, "rev-parse", "main")) == (tip, main)
    assert not (repo / "worktrees" / f"GH-{number}").exists()
    assert state_of(repo, number) is WorkflowState.IN_PROGRESS


def test_hero_refuses_a_persons_branch_at_once_and_never_merges_it(tmp_path):
    repo, number = farewell_project(tmp_path / "greet")
    through(repo, number, "research", "plan", "approve")
    persons_work_in_progress(repo, f"feature/GH-{number}")
    started = time.monotonic()
    hero = ralph_process("hero", str(number), cwd=repo)
    assert time.monotonic() - started < 25  # not retried with backoffs
    assert hero.returncode == 1, hero.stdout + hero.stderr
    assert "Traceback" not in hero.stdout + hero.stderr
    assert f"feature/GH-{number} already exists with 1 commit(s)" in hero.stdout
    assert "experiment.txt" not in git(repo, "ls-tree", "-r", "--name-only", "main")
    assert state_of(repo, number) is WorkflowState.IN_PROGRESS  # no escalation to undo


def test_a_renamed_branch_leaves_ralph_to_make_its_own(tmp_path):
    repo, number = farewell_project(tmp_path / "greet")
    through(repo, number, "research", "plan", "approve")
    persons_work_in_progress(repo, f"feature/GH-{number}")
    git(repo, "branch", "-m", f"feature/GH-{number}", "my-experiment")
    through(repo, number, "implement", "pr", "merge")
    assert "experiment.txt" not in git(repo, "ls-tree", "-r", "--name-only", "main")
    assert "def farewell" in git(repo, "show", "main:greet/core.py")


def test_an_adopted_branch_is_built_on_and_merged(tmp_path):
    repo, number = farewell_project(tmp_path / "greet")
    through(repo, number, "research", "plan", "approve")
    branch = f"feature/GH-{number}"
    persons_work_in_progress(repo, branch)
    adopted = ralph_process("run", "implement", str(number), "--adopt-branch", branch, cwd=repo)
    assert adopted.returncode == 0, adopted.stdout + adopted.stderr
    through(repo, number, "pr", "merge")
    assert git(repo, "show", "main:experiment.txt") == "DO NOT SHIP: half-done experiment"
    assert state_of(repo, number) is WorkflowState.DONE


def test_adopting_a_branch_that_does_not_exist_is_one_line(tmp_path):
    repo, number = farewell_project(tmp_path / "greet")
    refused = ralph_process("hero", str(number), "--adopt-branch", "feature/nope", cwd=repo)
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "ralph: error: there is no branch feature/nope to adopt; name an existing local "
        "branch (git branch --list 'feature/*')"
    ]


def test_a_branch_ralph_made_is_reused_after_its_worktree_was_removed(tmp_path):
    repo, number = farewell_project(tmp_path / "greet")
    through(repo, number, "research", "plan", "approve", "implement")
    git(repo, "worktree", "remove", "--force", f"worktrees/GH-{number}")
    through(repo, number, "implement", "pr", "merge")
    assert state_of(repo, number) is WorkflowState.DONE
