"""Dead ends a person can walk into: each says what happened and the one thing to do, in
one line, with no traceback; following the advice gets the work going again."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from ralph.demo import create_demo_project
from ralph.workflow import WorkflowState

from .cli_project import farewell_project, state_of, through
from .conftest import ralph_process


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    """The single error line of a command that refused (exit 2, nothing else said)."""
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    return line.removeprefix("ralph: error: ")


def test_a_feature_branch_deleted_after_its_pull_request_says_to_implement_again(tmp_path):
    repo, n = farewell_project(tmp_path / "greet")
    through(repo, n, "research", "plan", "approve", "implement", "pr")
    git(repo, "worktree", "remove", "--force", f"worktrees/GH-{n}")
    git(repo, "branch", "-D", f"feature/GH-{n}")
    line = one_line(ralph_process("run", "merge", str(n), cwd=repo))
    assert line == (
        f"pull request #{n + 1} has nothing to merge: its branch feature/GH-{n} no longer "
        f'exists; implement it again: ralph issue move {n} "In Progress", then ralph hero {n} '
        f"(or restore feature/GH-{n} if you still have its commits)"
    )
    started = time.monotonic()
    hero = ralph_process("hero", str(n), cwd=repo)
    assert time.monotonic() - started < 25  # refused once, not retried with backoffs
    assert hero.returncode == 1
    assert "has nothing to merge" in hero.stdout
    # The advice works.
    assert ralph_process("issue", "move", str(n), "In Progress", cwd=repo).returncode == 0
    again = ralph_process("hero", str(n), cwd=repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert state_of(repo, n) is WorkflowState.DONE
    assert "def farewell" in git(repo, "show", "main:greet/core.py")


def test_a_research_document_deleted_by_hand_names_the_way_back_to_research(tmp_path):
    repo, n = farewell_project(tmp_path / "greet")
    through(repo, n, "research")
    git(repo, "rm", "-q", "-r", "thoughts/shared/research")
    git(repo, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "remove research")
    line = one_line(ralph_process("run", "plan", str(n), cwd=repo))
    assert line == (
        f"#{n} has no research document on main (was it removed?); research it again: "
        f'ralph issue move {n} "Human Needed", ralph issue move {n} "Research Needed", '
        f"then ralph run research {n} (or by hand: ralph research {n} --interactive)"
    )
    for state in ("Human Needed", "Research Needed"):
        moved = ralph_process("issue", "move", str(n), state, cwd=repo)
        assert moved.returncode == 0, moved.stdout + moved.stderr
    through(repo, n, "research", "plan")
    assert state_of(repo, n) is WorkflowState.PLAN_IN_REVIEW


def test_a_repository_without_commits_says_to_commit_first(tmp_path):
    repo = tmp_path / "empty"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    assert ralph_process("init", cwd=repo).returncode == 0
    assert ralph_process("issue", "new", "Something", "-e", "XS", cwd=repo).returncode == 0
    for command in (["run", "triage", "1"], ["hero", "1"]):
        assert one_line(ralph_process(*command, cwd=repo)) == (
            f"{repo} has no commits yet; make a first commit "
            '(git commit --allow-empty -m "First commit"), then run this again'
        )


def test_a_bare_repository_says_to_use_a_clone(tmp_path):
    bare = tmp_path / "shop.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    assert one_line(ralph_process("init", cwd=bare)) == (
        f"{bare} is a bare repository (no files checked out); run Ralph in a clone of it: "
        f"git clone {bare} DIR, then ralph init in DIR"
    )


def test_a_missing_or_empty_base_branch_is_named_with_the_branches_there_are(tmp_path):
    repo, n = farewell_project(tmp_path / "greet")
    config = repo / "ralph.toml"
    text = config.read_text()
    config.write_text(text.replace('base_branch = "main"', 'base_branch = "develop"'))
    assert one_line(ralph_process("run", "research", str(n), cwd=repo)) == (
        f"the base branch develop does not exist in {repo}; set base_branch in ralph.toml "
        "to one of: main"
    )
    config.write_text(text.replace('base_branch = "main"', 'base_branch = ""'))
    assert one_line(ralph_process("hero", str(n), cwd=repo)) == (
        "base_branch is empty in ralph.toml; set it to the branch pull requests merge into "
        '(e.g. base_branch = "main")'
    )
    assert state_of(repo, n) is WorkflowState.RESEARCH_NEEDED


def test_approving_an_epic_names_the_sub_issue_that_has_the_plan(tmp_path):
    repo, epic = create_demo_project(tmp_path / "greet")
    through(repo, epic, "triage", "split")
    for child in (2, 3, 4):
        through(repo, child, "research")
    through(repo, 2, "plan")
    assert one_line(ralph_process("approve", str(epic), cwd=repo)) == (
        f"#{epic} is an epic; its plan is on its sub-issue #2: run the same command with 2 "
        f"instead of {epic}"
    )


def test_worker_takes_store_after_the_command_too(tmp_path):
    repo, _ = farewell_project(tmp_path / "greet")
    line = one_line(ralph_process("worker", "--store", "nosuch://x", "--wait", "0", cwd=repo))
    assert "No such option" not in line
    assert "nosuch" in line  # the URL given after the command is the one opened
    own = f"sqlite:///{repo / '.ralph' / 'ralph.db'}"
    waiting = ralph_process("worker", "--wait", "0", "--store", own, cwd=repo)
    assert one_line(waiting) == (
        "no active run in the store after 0s; start one with `ralph team N` (or pass --run ID)"
    )
