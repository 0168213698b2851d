"""kill -9 while ``git worktree add`` runs, then the same command again: Ralph clears the
half-made worktree and goes on (scratch checkouts and implementation worktrees alike)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from ralph.workflow import WorkflowState

from ..cli_project import farewell_project, state_of, through
from ..conftest import ralph_process, spawn_ralph

#: Enough files that checking them out takes a good part of a second, even on a fast disk.
PADDING = 4000


def git(repo: Path, *args: str, stdin: str | None = None, index: Path | None = None) -> str:
    env = {**os.environ, "GIT_INDEX_FILE": str(index)} if index else None
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def padded_project(folder: Path) -> tuple[Path, int]:
    """The farewell project with many small files on main."""
    repo, number = farewell_project(folder)
    blob = git(repo, "hash-object", "-w", "--stdin", stdin="padding\n")
    index = repo / ".git" / "padding-index"
    git(repo, "read-tree", "main", index=index)
    lines = "".join(f"100644 {blob}\tpad/{n // 500}/{n}.txt\n" for n in range(PADDING))
    git(repo, "update-index", "--index-info", stdin=lines, index=index)
    tree = git(repo, "write-tree", index=index)
    index.unlink()
    commit = git(
        repo,
        "-c",
        "user.name=P",
        "-c",
        "user.email=p@x",
        "commit-tree",
        tree,
        "-p",
        "main",
        "-m",
        "padding",
    )
    git(repo, "update-ref", "refs/heads/main", commit)
    git(repo, "reset", "-q", "--hard")
    return repo, number


def kill_during_worktree_add(repo: Path, admin: str, *args: str) -> None:
    """Run ``ralph args`` and kill -9 its whole process group while git checks out the
    worktree whose entry under .git/worktrees is ``admin``."""
    locked = repo / ".git" / "worktrees" / admin / "locked"
    process = spawn_ralph(
        *args,
        cwd=repo,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not locked.exists():
            assert process.poll() is None, "ralph ended before creating the worktree"
            assert time.monotonic() < deadline, "the worktree was never created"
            time.sleep(0.002)
        time.sleep(0.1)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    listing = git(repo, "worktree", "list", "--porcelain")
    assert "locked initializing" in listing, "the kill came after the checkout"


@pytest.mark.timeout(300)  # several checkouts of the padded repository
def test_a_kill_while_a_scratch_worktree_is_made_does_not_stop_the_next_run(tmp_path):
    repo, number = padded_project(tmp_path / "greet")
    kill_during_worktree_add(repo, f"research-GH-{number}", "run", "research", str(number))
    again = ralph_process("run", "research", str(number), cwd=repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Status: Ready for Plan." in again.stdout
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1


@pytest.mark.timeout(300)
def test_a_kill_while_the_implementation_worktree_is_made_does_not_send_it_to_a_person(tmp_path):
    repo, number = padded_project(tmp_path / "greet")
    through(repo, number, "research", "plan", "approve")
    kill_during_worktree_add(repo, f"GH-{number}", "run", "implement", str(number))
    through(repo, number, "implement", "pr", "merge")
    assert state_of(repo, number) is WorkflowState.DONE
    assert "def farewell" in git(repo, "show", "main:greet/core.py")
