"""Reading what changed in a checkout writes nothing there: a document commit that moves
the same checkout at that moment (another worker's) must not find its index locked."""

from __future__ import annotations

import os
import threading

from ralph.git import GitRepo, commit_files, working_changes

from ..conftest import Project, git


def test_reading_changes_leaves_the_index_untouched(project: Project):
    readme = project.path / "README.md"
    index = project.path / ".git" / "index"
    stat = readme.stat()
    os.utime(readme, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))  # stale index
    before = index.stat().st_mtime_ns
    assert working_changes(GitRepo(project.path)) == {}
    assert index.stat().st_mtime_ns == before


def test_documents_commit_while_another_thread_reads_the_checkout(project: Project):
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
