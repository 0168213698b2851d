"""Documents are committed to the base branch without touching the person's checkout."""

from __future__ import annotations

import subprocess

import pytest

from ralph.errors import GitError
from ralph.git import GitRepo, commit_files

from ..conftest import GitProject, git


def test_files_land_on_the_branch_and_a_checked_out_branch_follows(project: GitProject):
    repo = GitRepo(project.path)
    (project.path / "notes.txt").write_text("mine, uncommitted\n")
    git(project.path, "add", "notes.txt")
    commit = commit_files(repo, "main", {"thoughts/shared/research/a.md": "# A\n"}, "docs: a")
    assert commit == project.rev("main")
    assert project.show("main", "thoughts/shared/research/a.md") == "# A"
    # The checkout follows the branch; the person's staged file is still staged.
    assert (project.path / "thoughts/shared/research/a.md").read_text() == "# A\n"
    assert git(project.path, "status", "--porcelain") == "A  notes.txt"


def test_committing_the_same_contents_again_commits_nothing(project: GitProject):
    repo = GitRepo(project.path)
    first = commit_files(repo, "main", {"doc.md": "x\n"}, "docs")
    assert first is not None
    assert commit_files(repo, "main", {"doc.md": "x\n"}, "docs") is None
    assert project.rev("main") == first


def test_a_branch_that_is_not_checked_out_moves_alone(project: GitProject):
    project.commit("side", {"side.txt": "s\n"}, "side")
    repo = GitRepo(project.path)
    before = project.rev("main")
    commit_files(repo, "side", {"doc.md": "d\n"}, "docs")
    assert project.show("side", "doc.md") == "d"
    assert project.rev("main") == before
    assert not (project.path / "doc.md").exists()


def test_a_commit_that_would_overwrite_uncommitted_work_is_refused(project: GitProject):
    repo = GitRepo(project.path)
    (project.path / "doc.md").write_text("the person's draft\n")
    git(project.path, "add", "doc.md")
    before = project.rev("main")
    with pytest.raises(GitError, match="uncommitted changes"):
        commit_files(repo, "main", {"doc.md": "ours\n"}, "docs")
    assert project.rev("main") == before
    assert (project.path / "doc.md").read_text() == "the person's draft\n"


def test_push_sends_the_branch_to_origin(project: GitProject, tmp_path):
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(project.path, "remote", "add", "origin", str(remote))
    repo = GitRepo(project.path)
    assert repo.has_remote()
    commit = commit_files(repo, "main", {"doc.md": "d\n"}, "docs")
    repo.push("main")
    assert git(remote, "rev-parse", "main") == commit


def test_the_tree_of_a_commit_ralph_made_or_read_is_not_asked_again(
    project: GitProject, monkeypatch: pytest.MonkeyPatch
):
    repo = GitRepo(project.path)
    first = commit_files(repo, "main", {"doc.md": "x\n"}, "docs")
    persons = project.commit("main", {"theirs.md": "t\n"}, "the person's")
    started: list[str] = []
    real_run = subprocess.run

    def counting(args: list[str], *rest: object, **options: object) -> object:
        if args[0] == "git":
            started.append(" ".join(args[3:]))
        return real_run(args, *rest, **options)  # type: ignore[call-overload]

    monkeypatch.setattr(subprocess, "run", counting)
    second = commit_files(repo, "main", {"doc.md": "y\n"}, "docs")  # on the person's
    assert commit_files(repo, "main", {"doc.md": "y\n"}, "docs") is None  # nothing new
    assert first is not None
    assert second is not None
    assert repo.tree_of(first) == project.rev(f"{first}^{{tree}}")
    assert repo.tree_of(persons) == project.rev(f"{persons}^{{tree}}")
    assert repo.tree_of(second) == project.rev("main^{tree}")
    asked = [command for command in started if "^{tree}" in command]
    assert asked == [f"rev-parse {persons}^{{tree}}"]
