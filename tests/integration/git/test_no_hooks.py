"""Ralph's own git operations never run a hook: one an agent planted in the repository
(``.git/hooks/post-checkout``, run by ``git worktree add``) would run with Ralph's
environment, tokens included."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

from ralph.git import GitRepo, Worktrees


def test_a_planted_hook_is_never_run_by_ralphs_git(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "first"]):
        subprocess.run(
            ["git", "-c", "user.name=p", "-c", "user.email=p@p", *args], cwd=repo, check=True
        )
    ran = tmp_path / "hook-ran.txt"
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text(f'#!/bin/sh\necho "HOOK token=$RALPH_GH_TOKEN" >> {ran}\n')
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)

    with Worktrees(GitRepo(repo)).scratch("research-GH-1", "main") as path:
        assert (path / ".git").exists()
    Worktrees(GitRepo(repo)).ensure("GH-1", "feature/GH-1", "main")

    assert not ran.exists()
    # The same hook does run for a person's own git: it was planted right.
    subprocess.run(["git", "checkout", "-q", "-b", "other"], cwd=repo, check=True)
    assert ran.exists()
