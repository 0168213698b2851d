"""Reading a branch's files and changes without checking it out."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from ralph.git import GitRepo
from ralph.git._tips import branch_tip


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


def _git_calls(repo: GitRepo, monkeypatch) -> list[tuple[str, ...]]:
    """Every git process ``repo`` starts from here on (``git`` runs through ``run``)."""
    calls: list[tuple[str, ...]] = []
    run = repo.run

    def counted(*args: str, **options: Any) -> Any:
        calls.append(args)
        return run(*args, **options)

    monkeypatch.setattr(repo, "run", counted)
    return calls


def test_reading_a_branch_again_starts_no_git_until_the_branch_moves(tmp_path: Path, monkeypatch):
    repo = _repo(tmp_path)
    repo.git_dir()
    calls = _git_calls(repo, monkeypatch)
    for _ in range(3):
        assert repo.files_on("main", "thoughts") == ["thoughts/plan.md"]
        assert repo.read_on("main", "thoughts/plan.md") == "the plan\n"
        assert repo.read_on("main", "thoughts/none.md") is None
    assert [call[0] for call in calls] == ["ls-tree", "show", "show"]
    (tmp_path / "thoughts" / "plan.md").write_text("the plan, again\n")
    (tmp_path / "thoughts" / "notes.md").write_text("notes\n")
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True, timeout=30)
    subprocess.run(["git", "commit", "-qm", "more"], cwd=tmp_path, check=True, timeout=30)
    assert repo.read_on("main", "thoughts/plan.md") == "the plan, again\n"
    assert repo.files_on("main", "thoughts") == ["thoughts/notes.md", "thoughts/plan.md"]


def test_a_packed_branch_is_read_as_a_loose_one(tmp_path: Path):
    repo = _repo(tmp_path)
    before = repo.read_on("feature", "app.py")
    subprocess.run(["git", "pack-refs", "--all"], cwd=tmp_path, check=True, timeout=30)
    assert not (tmp_path / ".git" / "refs" / "heads" / "feature").exists()
    assert branch_tip(repo.git_dir(), "feature") == repo.resolve("feature")
    assert GitRepo(tmp_path).read_on("feature", "app.py") == before == "x = 2\n"


def test_a_name_the_files_cannot_tell_is_left_to_git(tmp_path: Path):
    repo = _repo(tmp_path)
    assert branch_tip(repo.git_dir(), "main") == repo.resolve("main")
    for name in ("nowhere", "../HEAD", "a..b", "/main", "main.lock", "with space"):
        assert branch_tip(repo.git_dir(), name) is None
    assert repo.read_on("nowhere", "app.py") is None
