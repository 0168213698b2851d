"""Reading a branch's files and changes without checking it out."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ralph.errors import GitError
from ralph.git import GitRepo
from tests.integration.git._counting import gits_started


def _repo(path: Path) -> GitRepo:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True, timeout=30)

    git("init", "-q", "-b", "main")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "T")
    (path / "thoughts").mkdir()
    (path / "thoughts" / "plan.md").write_text("the plan\n")
    (path / "app.py").write_text("x = 1\n")
    git("add", ".")
    git("commit", "-qm", "base")
    git("checkout", "-qb", "feature")
    (path / "app.py").write_text("x = 2\n")
    (path / "new.py").write_text("y = 1\n")
    git("add", ".")
    git("commit", "-qm", "change")
    git("checkout", "-q", "main")
    (path / "later.py").write_text("z = 1\n")
    git("add", ".")
    git("commit", "-qm", "main moves on")
    return GitRepo(path)


def test_changed_files_are_the_heads_own_changes_not_what_base_gained_since(tmp_path: Path):
    repo = _repo(tmp_path)
    assert repo.changed_files("main", "feature") == ["app.py", "new.py"]


def test_files_on_a_branch_are_listed_under_a_folder_only(tmp_path: Path):
    repo = _repo(tmp_path)
    assert repo.files_on("main", "thoughts") == ["thoughts/plan.md"]
    assert repo.files_on("main", "nowhere") == []


def test_a_file_is_read_from_a_branch_and_a_missing_one_is_none(tmp_path: Path):
    repo = _repo(tmp_path)
    assert repo.read_on("feature", "app.py") == "x = 2\n"
    assert repo.read_on("main", "app.py") == "x = 1\n"
    assert repo.read_on("feature", "later.py") is None


def _commit(path: Path, name: str, text: str) -> None:
    target = path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    for args in (["add", name], ["commit", "-qm", f"write {name}"]):
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True, timeout=30)


def test_documents_read_again_at_the_same_commit_start_no_git(tmp_path: Path, monkeypatch):
    repo = _repo(tmp_path)
    assert repo.read_on("main", "thoughts/plan.md") == "the plan\n"
    started = gits_started(monkeypatch)
    for _ in range(3):
        assert repo.files_on("main", "thoughts") == ["thoughts/plan.md"]
        assert repo.read_on("main", "thoughts/plan.md") == "the plan\n"
        assert repo.read_on("main", "thoughts/none.md") is None
    assert started == []


def test_a_document_is_read_anew_once_the_branch_moves(tmp_path: Path, monkeypatch):
    repo = _repo(tmp_path)
    assert repo.read_on("main", "thoughts/plan.md") == "the plan\n"
    _commit(tmp_path, "thoughts/plan.md", "a better plan\n")
    _commit(tmp_path, "thoughts/research.md", "what was found\n")
    started = gits_started(monkeypatch)
    assert repo.files_on("main", "thoughts") == ["thoughts/plan.md", "thoughts/research.md"]
    assert repo.read_on("main", "thoughts/plan.md") == "a better plan\n"
    assert repo.read_on("main", "thoughts/research.md") == "what was found\n"
    # One listing of the new commit, one read of each new file.
    assert [args[0] for args in started] == ["ls-tree", "cat-file", "cat-file"]


def test_branches_are_found_in_packed_refs_and_after_moving_past_them(tmp_path: Path):
    repo = _repo(tmp_path)
    subprocess.run(["git", "pack-refs", "--all"], cwd=tmp_path, check=True, timeout=30)
    assert not (tmp_path / ".git" / "refs" / "heads" / "feature").exists()
    assert repo.read_on("feature", "app.py") == "x = 2\n"
    _commit(tmp_path, "thoughts/plan.md", "packed, then moved\n")
    assert repo.read_on("main", "thoughts/plan.md") == "packed, then moved\n"


def test_a_missing_branch_has_no_files_and_cannot_be_listed(tmp_path: Path):
    repo = _repo(tmp_path)
    assert repo.read_on("gone", "thoughts/plan.md") is None
    assert repo.read_on("../../HEAD", "thoughts/plan.md") is None
    with pytest.raises(GitError, match="there is no branch gone"):
        repo.files_on("gone", "thoughts")


def test_a_branch_with_a_slash_and_a_file_with_any_name_are_read(tmp_path: Path):
    repo = _repo(tmp_path)
    subprocess.run(["git", "checkout", "-qb", "ralph/7"], cwd=tmp_path, check=True, timeout=30)
    _commit(tmp_path, "thoughts/plans/été 7.md", "accents and a space\n")
    assert repo.files_on("ralph/7", "thoughts") == [
        "thoughts/plan.md",
        "thoughts/plans/été 7.md",
    ]
    assert repo.read_on("ralph/7", "thoughts/plans/été 7.md") == "accents and a space\n"
    assert repo.read_on("ralph/7", "thoughts/plans") is None  # a folder is not a file
    assert repo.read_on("ralph/7", "later.py") == "z = 1\n"  # a file at the top


def test_a_missing_branch_is_known_missing_without_git_and_found_once_made(
    tmp_path: Path, monkeypatch
):
    repo = _repo(tmp_path)
    started = gits_started(monkeypatch)
    assert not repo.has_branch("work/GH-1")
    assert not repo.has_branch("work/GH-1/deeper")
    assert started == []
    subprocess.run(["git", "branch", "work/GH-1"], cwd=tmp_path, check=True, timeout=30)
    assert repo.has_branch("work/GH-1")
    subprocess.run(["git", "pack-refs", "--all"], cwd=tmp_path, check=True, timeout=30)
    assert repo.has_branch("work/GH-1")
    assert not repo.has_branch("work/GH-2")
    assert [args[0] for args in started] == ["branch", "pack-refs"]  # the test's own


def test_a_packed_refs_that_is_not_text_is_left_to_git(tmp_path: Path):
    repo = _repo(tmp_path)
    latin = [b"git", b"update-ref", b"refs/heads/caf\xe9", b"main"]
    subprocess.run(latin, cwd=tmp_path, check=True, timeout=30)
    subprocess.run(["git", "pack-refs", "--all"], cwd=tmp_path, check=True, timeout=30)
    assert repo.has_branch("feature")
    assert not repo.has_branch("gone")


def test_branches_named_alike_are_listed_from_loose_and_packed_refs_as_git_lists_them(
    tmp_path: Path, monkeypatch
):
    repo = _repo(tmp_path)

    def branch(name: str) -> None:
        subprocess.run(["git", "branch", name], cwd=tmp_path, check=True, timeout=30)

    def listed_by_git() -> list[str]:
        refs = subprocess.run(
            ["git", "for-each-ref", "--format=%(refname:short)", "refs/heads/work/GH-4-try-*"],
            cwd=tmp_path,
            check=True,
            capture_output=True,
            text=True,
            timeout=30,
        )
        return refs.stdout.split()

    branch("work/GH-4-try-1")
    subprocess.run(["git", "pack-refs", "--all"], cwd=tmp_path, check=True, timeout=30)
    for name in ("work/GH-4-try-2", "work/GH-4-try-3/deeper", "work/GH-40-try-1", "work/GH-4"):
        branch(name)
    (tmp_path / ".git" / "refs" / "heads" / "work" / "GH-4-try-9.lock").write_text("being made")

    started = gits_started(monkeypatch)
    named = repo.branches_named("work/GH-4-try-")

    assert named == ["work/GH-4-try-1", "work/GH-4-try-2"]
    assert named == [name for name in listed_by_git() if "/deeper" not in name]
    assert repo.branches_named("elsewhere/GH-4-try-") == []
    assert [args[0] for args in started] == ["for-each-ref"]  # the test's own
