"""A crash between a checkout following its branch and the branch moving: the person's
index and files are put back before anything else, byte for byte."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ralph.git import GitRepo, commit_files

from ..cli_project import farewell_project, through
from ..conftest import GitProject, git, ralph_process

DOCUMENT = "thoughts/shared/research/2026-11-22-GH-0002-farewell.md"


def person_at_work(checkout: Path, edited: str = "README.md") -> None:
    """An unstaged edit of ``edited``, a staged new file and an untracked file in the
    checkout."""
    (checkout / edited).write_text("edited but not staged\n")
    (checkout / "staged.txt").write_text("staged by the person\n")
    git(checkout, "add", "staged.txt")
    (checkout / "untracked.txt").write_text("nobody added me\n")


def work_of(checkout: Path, edited: str = "README.md") -> dict[str, str]:
    """Everything the person has not committed, as git and the disk show it."""
    return {
        "status": git(checkout, "status", "--porcelain=v1", "--untracked-files=all"),
        "staged": git(checkout, "diff", "--cached", "--binary"),
        "unstaged": git(checkout, "diff", "--binary"),
        "untracked": (checkout / "untracked.txt").read_text(),
        "staged file": (checkout / "staged.txt").read_text(),
        "edited file": (checkout / edited).read_text(),
    }


def test_a_failure_between_the_follow_and_the_move_puts_the_checkout_back(
    project: GitProject, monkeypatch
):
    person_at_work(project.path)
    before, head = work_of(project.path), project.rev("HEAD")
    real_run = GitRepo.run

    def crashing(self, *args, **kwargs):
        if args[:1] == ("update-ref",):
            raise KeyboardInterrupt  # as an interrupt between the two steps would
        return real_run(self, *args, **kwargs)

    monkeypatch.setattr(GitRepo, "run", crashing)
    with pytest.raises(KeyboardInterrupt):
        commit_files(GitRepo(project.path), "main", {DOCUMENT: "# Research\n"}, "docs")
    assert project.rev("HEAD") == head
    assert work_of(project.path) == before
    assert not (project.path / DOCUMENT).exists()


#: A git that kills the process calling it instead of moving ``main``: kill -9 between
#: the checkout following and the branch moving.
WRAPPER = """#!/bin/sh
case " $* " in
    *" update-ref refs/heads/main "*)
        kill -9 $PPID
        exit 1
        ;;
esac
exec {git} "$@"
"""
COMMIT = """
import sys
from pathlib import Path
from ralph.config import load_config
from ralph.project import open_project
from ralph.demo import create_demo_project
from ralph.demo._sample import FAREWELL
from ralph.git import GitRepo, commit_files
from ralph.workflow import Estimate, WorkflowState
commit_files(GitRepo(Path(sys.argv[1])), "main", {sys.argv[2]: "# Research\\n"}, "docs")
"""


def killing_git(folder: Path) -> dict[str, str]:
    """The environment of a process whose git dies moving main."""
    folder.mkdir()
    real = subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip()
    wrapper = folder / "git"
    wrapper.write_text(WRAPPER.format(git=real))
    wrapper.chmod(0o755)
    return {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def test_a_kill_between_the_follow_and_the_move_is_undone_by_the_next_writer(
    project: GitProject, tmp_path
):
    person_at_work(project.path)
    before, head = work_of(project.path), project.rev("HEAD")
    env = killing_git(tmp_path / "bin")
    killed = subprocess.run(
        [sys.executable, "-c", COMMIT, str(project.path), DOCUMENT],
        env=env,
        timeout=60,
        check=False,
    )
    assert killed.returncode == -9
    # The window the kill hit: Ralph's document sits in the person's index.
    assert f"A  {DOCUMENT}" in git(project.path, "status", "--porcelain")
    repo = GitRepo(project.path)
    repo.recover_interrupted()
    assert project.rev("HEAD") == head
    assert work_of(project.path) == before
    assert not (project.path / DOCUMENT).exists()
    # And the commit, made again, leaves the person's work as it was.
    assert commit_files(repo, "main", {DOCUMENT: "# Research\n"}, "docs") is not None
    assert work_of(project.path) == before
    assert (project.path / DOCUMENT).read_text() == "# Research\n"


def test_the_next_commit_to_the_branch_puts_the_checkout_back_first(project: GitProject, tmp_path):
    person_at_work(project.path)
    before = work_of(project.path)
    env = killing_git(tmp_path / "bin")
    subprocess.run(
        [sys.executable, "-c", COMMIT, str(project.path), DOCUMENT],
        env=env,
        timeout=60,
        check=False,
    )
    other = "thoughts/shared/plans/2026-11-22-GH-0003-other.md"
    commit_files(GitRepo(project.path), "main", {other: "# Plan\n"}, "docs")
    assert work_of(project.path) == before
    assert git(project.path, "ls-tree", "--name-only", "-r", "HEAD", "thoughts") == other
    assert not (project.path / DOCUMENT).exists()


def test_a_merge_killed_before_the_move_is_undone_too(project: GitProject, tmp_path):
    project.commit("feature/GH-2", {"feature.py": "print('hi')\n"}, "feature")
    person_at_work(project.path)
    before, head = work_of(project.path), project.rev("HEAD")
    merge = (
        "import sys; from pathlib import Path; from ralph.git import GitRepo; "
        "GitRepo(Path(sys.argv[1])).merge('feature/GH-2', 'main', 'Merge')"
    )
    env = killing_git(tmp_path / "bin")
    killed = subprocess.run(
        [sys.executable, "-c", merge, str(project.path)], env=env, timeout=60, check=False
    )
    assert killed.returncode == -9
    assert "A  feature.py" in git(project.path, "status", "--porcelain")
    GitRepo(project.path).recover_interrupted()
    assert project.rev("HEAD") == head
    assert work_of(project.path) == before
    assert not (project.path / "feature.py").exists()


@pytest.mark.parametrize("phase", ["research", "merge"])
def test_ralph_killed_while_moving_main_leaves_the_persons_work_as_it_was(tmp_path, phase):
    repo, number = farewell_project(tmp_path / "greet")
    if phase == "merge":
        through(repo, number, "research", "plan", "approve", "implement", "pr")
    mine = "tests/__init__.py"
    person_at_work(repo, mine)
    before, head = work_of(repo, mine), git(repo, "rev-parse", "HEAD")
    killed = ralph_process("run", phase, str(number), env=killing_git(tmp_path / "bin"), cwd=repo)
    assert killed.returncode == -9
    assert work_of(repo, mine) != before  # the window: Ralph's changes staged in the person's index
    # Any run puts the person's work back first, even one refused at once.
    refused = ralph_process("run", "triage", str(number), cwd=repo)
    assert "triage takes issues in Backlog" in refused.stderr + refused.stdout
    assert work_of(repo, mine) == before
    again = ralph_process("run", phase, str(number), cwd=repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert git(repo, "rev-parse", "HEAD") != head
    assert work_of(repo, mine) == before
