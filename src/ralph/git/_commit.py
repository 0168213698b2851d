"""Commit files to a branch without a checkout: research, plans and critiques land on the
base branch while the person's working tree and index stay theirs.

The commit is built in a private index (``GIT_INDEX_FILE``) from the branch tip, and the
branch moves with ``update-ref`` only if it still points at that tip. If the branch is
checked out somewhere, that worktree follows exactly as after a merge (``_follow``).
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ralph.errors import GitError
from ralph.git._follow import move_branch
from ralph.git._repo import GitRepo

__all__ = ["commit_files"]

logger = logging.getLogger(__name__)
_ATTEMPTS = 3


def commit_files(repo: GitRepo, branch: str, files: Mapping[str, str], message: str) -> str | None:
    """Commit ``files`` (repository-relative path -> text) on top of ``branch``. Returns
    the new commit, or None when the branch already holds exactly these contents (a
    rerun commits nothing)."""
    with repo.branch_lock(branch):
        return _commit(repo, branch, files, message)


def _commit(repo: GitRepo, branch: str, files: Mapping[str, str], message: str) -> str | None:
    for _ in range(_ATTEMPTS):
        tip = repo.resolve(f"refs/heads/{branch}")
        tree = _tree_with(repo, tip, files)
        if tree == repo.tree_of(tip):
            return None
        commit = repo.commit_tree(tree, tip, message=message, what="create the commit")
        if move_branch(repo, branch, tip, commit):
            logger.info("committed", extra={"branch": branch, "commit": commit})
            return commit
        # Someone else moved the branch (nothing changed here): start over from its tip.
    raise GitError(f"{branch} kept moving while committing {', '.join(files)}; retry")


def _tree_with(repo: GitRepo, tip: str, files: Mapping[str, str]) -> str:
    with tempfile.TemporaryDirectory(prefix="ralph-index-") as folder:
        env = {"GIT_INDEX_FILE": str(Path(folder) / "index")}
        repo.git("read-tree", tip, what="read the branch tree", env=env)
        for path, text in files.items():
            blob = repo.run("hash-object", "-w", "--stdin", stdin=text)
            if blob.returncode != 0:
                raise GitError(f"could not store {path}: {blob.stderr.strip()}")
            repo.git(
                "update-index",
                "--add",
                "--cacheinfo",
                f"100644,{blob.stdout.strip()},{path}",
                what=f"stage {path}",
                env=env,
            )
        return repo.git("write-tree", what="write the tree", env=env)
