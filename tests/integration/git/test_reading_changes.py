"""Reading what changed in a checkout writes nothing there: a document commit that moves
the same checkout at that moment (another worker's) must not find its index locked."""

from __future__ import annotations

import os
import threading

from ralph.git import GitRepo, commit_files, working_changes

from ..conftest import GitProject, git


def test_reading_changes_leaves_the_index_untouched(project: GitProject):
    readme = project.path / "README.md"
    index = project.path / ".git" / "index"
    stat = readme.stat()
    os.utime(readme, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))  # stale index
    before = index.stat().st_mtime_ns
    assert working_changes(GitRepo(project.path)) == {}
    assert index.stat().st_mtime_ns == before


def test_documents_commit_while_another_thread_reads_the_checkout(project: GitProject):
    repo = GitRepo(project.path)
    project.commit("main", {f"src/f{i}.txt": "x" * 1000 for i in range(60)}, "files")
    git(project.path, "reset", "-q", "--hard")
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            working_changes(repo)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for i in range(12):
            commit_files(repo, "main", {f"thoughts/d{i}.md": "doc\n"}, f"docs {i}")
    finally:
        stop.set()
        reader.join(timeout=30)
    assert not reader.is_alive()
    assert working_changes(repo) == {}


def test_a_snapshot_waits_while_a_commit_is_moving_the_checkout(project: GitProject):
    repo = GitRepo(project.path)
    tip = project.rev("main")
    commit = project.commit("main", {"thoughts/doc.md": "doc\n"}, "docs")
    git(project.path, "update-ref", "refs/heads/main", tip)  # as before the commit
    seen: list[dict[str, str]] = []
    with repo.branch_lock("main"):
        repo.follow(project.path, "main", tip, commit)  # the files moved, the branch not yet
        reader = threading.Thread(target=lambda: seen.append(working_changes(repo)))
        reader.start()
        reader.join(timeout=0.5)
        assert reader.is_alive()  # it waits rather than see the half-moved checkout
        git(project.path, "update-ref", "refs/heads/main", commit, tip)
    reader.join(timeout=30)
    assert seen == [{}]
