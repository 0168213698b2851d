"""Worktrees for implementation (``worktrees/GH-N`` on ``feature/GH-N``, the original's
names) and throwaway checkouts for the phases that only write documents.

A worktree is created or reused, never silently replaced; pruning refuses to delete one
that has uncommitted changes or commits its base branch does not contain, and says why.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import GitError
from ralph.git._changes import working_changes
from ralph.git._repo import GitRepo

__all__ = ["Pruned", "Worktree", "Worktrees"]

logger = logging.getLogger(__name__)

WORKTREES = "worktrees"
SCRATCH = ".ralph/scratch"


@dataclass(frozen=True)
class Worktree:
    id: str
    path: Path
    branch: str
    #: False when an existing worktree was reused.
    created: bool


@dataclass(frozen=True)
class Pruned:
    removed: bool
    #: Why a worktree was kept (empty when it was removed or never existed).
    reason: str = ""


class Worktrees:
    def __init__(self, repo: GitRepo) -> None:
        self.repo = repo
        self.root = repo.path / WORKTREES

    def path(self, worktree_id: str) -> Path:
        return self.root / worktree_id

    def ensure(self, worktree_id: str, branch: str, base: str) -> Worktree:
        """The worktree ``worktree_id`` on ``branch``: reused when it exists, else created
        (the branch too, from ``base``, if it does not exist yet)."""
        self.repo.exclude(f"/{WORKTREES}/")
        path = self.path(worktree_id)
        registered = self.repo.worktrees()
        if path.exists():
            if path.resolve() not in registered:
                raise GitError(
                    f"{path} exists but is not a worktree of this repository; "
                    "move it away and retry"
                )
            held = registered[path.resolve()]
            if held != branch:
                raise GitError(f"worktree {path} has {held or 'a detached HEAD'}, not {branch}")
            return Worktree(worktree_id, path, branch, created=False)
        self.repo.run("worktree", "prune")  # forget worktrees whose folder was deleted
        path.parent.mkdir(parents=True, exist_ok=True)
        if self.repo.has_branch(branch):
            self.repo.git("worktree", "add", str(path), branch, what=f"check out {branch}")
        else:
            self.repo.git(
                "worktree", "add", "-b", branch, str(path), f"refs/heads/{base}",
                what=f"create {branch} from {base}",
            )  # fmt: skip
        logger.info("worktree created", extra={"worktree": worktree_id, "branch": branch})
        return Worktree(worktree_id, path, branch, created=True)

    def prune(self, worktree_id: str, base: str) -> Pruned:
        """Remove the worktree if nothing would be lost: no uncommitted changes and no
        commit that ``base`` lacks. The branch itself is kept."""
        path = self.path(worktree_id)
        branch = self.repo.worktrees().get(path.resolve())
        if not path.exists():
            return Pruned(False)
        dirty = sorted(working_changes(self.repo, path))
        if dirty:
            files = dirty
            return Pruned(False, f"it has uncommitted changes: {', '.join(files[:5])}")
        if branch is not None:
            ahead = self.repo.git(
                "rev-list", "--count", f"refs/heads/{base}..refs/heads/{branch}",
                what="count unmerged commits",
            )  # fmt: skip
            # A squash merge leaves the commits unmerged by ancestry but their changes in.
            if int(ahead) and not self._already_in(branch, base):
                return Pruned(False, f"{branch} has {ahead} commit(s) not merged into {base}")
        self.repo.git("worktree", "remove", str(path), what=f"remove worktree {path}")
        logger.info("worktree removed", extra={"worktree": worktree_id})
        return Pruned(True)

    def _already_in(self, branch: str, base: str) -> bool:
        """Whether merging ``branch`` into ``base`` would change nothing."""
        merged = self.repo.run(
            "merge-tree", "--write-tree", "--no-messages", f"refs/heads/{base}",
            f"refs/heads/{branch}",
        )  # fmt: skip
        base_tree = self.repo.git("rev-parse", f"refs/heads/{base}^{{tree}}", what="read base")
        return merged.returncode == 0 and merged.stdout.strip() == base_tree

    @contextmanager
    def scratch(self, name: str, base: str) -> Iterator[Path]:
        """A detached checkout of ``base`` for one phase, removed afterwards whatever is
        in it (it only ever holds an agent's drafts, which the phase has read)."""
        self.repo.exclude("/.ralph/")
        path = self.repo.path / SCRATCH / name
        if path.exists():
            self._discard(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.repo.git(
            "worktree", "add", "--detach", str(path), f"refs/heads/{base}",
            what=f"check out {base} for {name}",
        )  # fmt: skip
        try:
            yield path
        finally:
            self._discard(path)

    def _discard(self, path: Path) -> None:
        if self.repo.run("worktree", "remove", "--force", str(path)).returncode != 0:
            shutil.rmtree(path, ignore_errors=True)
            self.repo.run("worktree", "prune")
