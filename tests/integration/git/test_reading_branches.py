"""Reading a branch's files and changes without checking it out."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ralph.git import GitRepo


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
