"""The confinement check around an attempt, on real repositories: the worktree's own
pointers and HEAD, attempts that overlap on one git dir, and a checkout too big to walk
whole."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ralph.git import Confinement, GitRepo, Worktrees

from ..conftest import GitProject, git


def _worktree(project: GitProject) -> Path:
    return Worktrees(GitRepo(project.path)).ensure("GH-1", "feature/GH-1", "main").path


def test_an_untouched_repository_has_no_breach(project: GitProject):
    confinement = Confinement(GitRepo(project.path), _worktree(project))
    confinement.before()
    assert not confinement.after()


def test_a_worktree_moved_to_another_branch_is_named_and_left_for_a_person(project: GitProject):
    path = _worktree(project)
    confinement = Confinement(GitRepo(project.path), path)
    confinement.before()
    git(path, "checkout", "-q", "-b", "elsewhere")
    breach = confinement.after()
    assert breach.problems() == [
        "the agent moved worktrees/GH-1 to another commit or branch: its HEAD now reads "
        "'ref: refs/heads/elsewhere' (not reverted)"
    ]
    assert git(path, "symbolic-ref", "--short", "HEAD") == "elsewhere"


def test_a_rewritten_worktree_pointer_is_put_back(project: GitProject, tmp_path: Path):
    path = _worktree(project)
    pointer = (path / ".git").read_text()
    decoy = tmp_path / "decoy"
    subprocess.run(["git", "init", "-q", str(decoy)], check=True)
    confinement = Confinement(GitRepo(project.path), path)
    confinement.before()
    (path / ".git").write_text(f"gitdir: {decoy / '.git'}\n")
    breach = confinement.after()
    assert breach.reverted == ("worktrees/GH-1/.git",)
    assert (path / ".git").read_text() == pointer


def test_overlapping_attempts_both_report_a_hook_and_neither_puts_it_back(project: GitProject):
    repo = GitRepo(project.path)
    hook = project.path / ".git" / "hooks" / "post-checkout"
    first = Confinement(repo, _worktree(project))
    first.before()
    hook.write_text("#!/bin/sh\nevil\n")  # planted by the first attempt's agent
    second = Confinement(repo, _worktree(project))
    second.before()  # compares with the snapshot from before the hook
    assert first.after().reverted == (".git/hooks/post-checkout",)
    assert not hook.exists()
    # Reported by the attempt that ran meanwhile too (nothing tells whose agent it was),
    # and not planted again as if it were where that attempt started.
    assert second.after().reverted == (".git/hooks/post-checkout",)
    assert not hook.exists()
    third = Confinement(repo, _worktree(project))
    third.before()
    assert not third.after()  # a later attempt starts clean


def test_a_huge_checkout_is_walked_to_its_budget_and_the_rest_left_out(project: GitProject):
    (project.path / ".git" / "info" / "exclude").write_text("/node_modules/\n/.env\n")
    for i in range(30):
        package = project.path / "node_modules" / f"p{i:02}"
        package.mkdir(parents=True)
        (package / "index.js").write_text("x")
    confinement = Confinement(GitRepo(project.path), _worktree(project), budget=40)
    confinement.before()
    (project.path / ".env").write_text("A=1\n")
    (project.path / "node_modules" / "p00" / "index.js").write_text("near the top: read\n")
    (project.path / "node_modules" / "p29" / "index.js").write_text("past the budget\n")
    assert confinement.after().noticed == (".env", "node_modules/p00/index.js")


def test_what_ralph_writes_under_its_own_folders_meanwhile_is_no_breach(project: GitProject):
    """Other workers append run logs and keep transcripts while an agent runs (in
    ``.ralph/``, which a Ralph project ignores)."""
    repo = GitRepo(project.path)
    repo.exclude("/.ralph/*")
    confinement = Confinement(repo, _worktree(project))
    confinement.before()
    runs = project.path / ".ralph" / "runs" / "1"
    runs.mkdir(parents=True)
    (runs / "task-1.log").write_text("== attempt 1\n")
    seen = confinement.after()
    assert not seen
    assert seen.noticed == ()
    confinement.before()
    elsewhere = project.path / ".ralph" / "elsewhere.txt"
    elsewhere.write_text("an agent's")
    assert confinement.after(wrote=[str(elsewhere)]).checkout == (".ralph/elsewhere.txt",)


def test_around_a_sandboxed_agent_the_checkout_is_not_read_and_control_files_still_are(
    project: GitProject,
):
    confinement = Confinement(GitRepo(project.path), _worktree(project), sandboxed=True)
    confinement.before()
    (project.path / "run.log").write_text("the person's log grows\n")
    hook = project.path / ".git" / "hooks" / "post-checkout"
    hook.write_text("#!/bin/sh\n")
    breach = confinement.after()
    assert (breach.checkout, breach.noticed) == ((), ())
    assert breach.reverted == (".git/hooks/post-checkout",)
    assert not hook.exists()
