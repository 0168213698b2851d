"""Worktrees for implementation (``worktrees/GH-N`` on ``feature/GH-N``, the original's
names) and throwaway checkouts for the phases that only write documents.

A worktree is created or reused, never silently replaced; pruning refuses to delete one
that has uncommitted changes or commits its base branch does not contain, and says why.
One that a crash left half made (see ``_leftovers``) is never reused: it is made again
from its branch, which holds every commit. Adding, removing and pruning worktrees hold
the repository's worktree lock, one at a time across threads and processes.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import GitError
from ralph.git._byproducts import noted_files, noted_list
from ralph.git._changes import working_changes
from ralph.git._leftovers import discard, entry_at, why_untrustworthy
from ralph.git._repo import GitRepo

__all__ = ["RUN_FILES_DIR", "Pruned", "Worktree", "Worktrees"]

logger = logging.getLogger(__name__)

WORKTREES = "worktrees"
SCRATCH = ".ralph/scratch"
#: Where runs keep each task's log and its agents' transcripts (``ralph.orchestrate.RunFiles``),
#: written by Ralph's workers while other workers' agents run.
RUN_FILES_DIR = ".ralph/runs"


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
        """The worktree ``worktree_id`` on ``branch``: reused when it exists whole, else
        created (the branch too, from ``base``, if it does not exist yet)."""
        self.repo.exclude(f"/{WORKTREES}/")
        path = self.path(worktree_id)
        with self.repo.worktree_lock():
            entry = entry_at(self.repo, path)
            if entry is not None:
                broken = why_untrustworthy(self.repo, entry)
                if broken is None and path.exists():
                    if entry.branch != branch:
                        raise GitError(
                            f"worktree {path} has {entry.branch or 'a detached HEAD'}, not {branch}"
                        )
                    return Worktree(worktree_id, path, branch, created=False)
                logger.warning(
                    "worktree made again", extra={"worktree": worktree_id, "why": broken}
                )
                discard(self.repo, path)  # the branch keeps every commit made there
            elif path.exists():
                raise GitError(
                    f"{path} exists but is not a worktree of this repository; "
                    "move it away and retry"
                )
            self.repo.run("worktree", "prune")  # forget worktrees whose folder was deleted
            path.parent.mkdir(parents=True, exist_ok=True)
            if self.repo.has_branch(branch):
                self.repo.git("worktree", "add", str(path), branch, what=f"check out {branch}")
            else:
                self.repo.git(
                    "worktree",
                    "add",
                    "-b",
                    branch,
                    str(path),
                    f"refs/heads/{base}",
                    what=f"create {branch} from {base}",
                )
        logger.info("worktree created", extra={"worktree": worktree_id, "branch": branch})
        return Worktree(worktree_id, path, branch, created=True)

    def prune(self, worktree_id: str, base: str) -> Pruned:
        """Remove the worktree if nothing would be lost: no uncommitted changes and no
        commit that ``base`` lacks. The branch itself is kept."""
        path = self.path(worktree_id)
        branch = self.repo.worktrees().get(path.resolve())
        if not path.exists():
            return Pruned(False)
        # What a preparing hook installed is made again on demand: not work to keep.
        installed = noted_files(self.repo, path)
        dirty = sorted(working_changes(self.repo, path).keys() - installed)
        if dirty:
            files = dirty
            return Pruned(False, f"it has uncommitted changes: {', '.join(files[:5])}")
        if branch is not None:
            ahead = self.repo.git(
                "rev-list",
                "--count",
                f"refs/heads/{base}..refs/heads/{branch}",
                what="count unmerged commits",
            )
            # A squash merge leaves the commits unmerged by ancestry but their changes in.
            if int(ahead) and not self._already_in(branch, base):
                return Pruned(False, f"{branch} has {ahead} commit(s) not merged into {base}")
        listed = noted_list(self.repo, path)
        with self.repo.worktree_lock():
            # git refuses untracked files without --force: here only what a hook installed.
            force = ["--force"] if installed else []
            self.repo.git("worktree", "remove", *force, str(path), what=f"remove worktree {path}")
        if listed is not None:
            listed.unlink(missing_ok=True)
        logger.info("worktree removed", extra={"worktree": worktree_id})
        return Pruned(True)

    def remove(self, worktree_id: str) -> bool:
        """Remove the worktree whatever is in it; its branch keeps every commit made
        there (for an attempt that lost: its branch stays for inspection). False when
        there was none."""
        path = self.path(worktree_id)
        listed = noted_list(self.repo, path) if path.exists() else None
        with self.repo.worktree_lock():
            if not path.exists() and entry_at(self.repo, path) is None:
                return False
            discard(self.repo, path)
        if listed is not None:
            listed.unlink(missing_ok=True)
        logger.info("worktree removed", extra={"worktree": worktree_id})
        return True

    def _already_in(self, branch: str, base: str) -> bool:
        """Whether merging ``branch`` into ``base`` would change nothing."""
        merged = self.repo.run(
            "merge-tree",
            "--write-tree",
            "--no-messages",
            f"refs/heads/{base}",
            f"refs/heads/{branch}",
        )
        base_tree = self.repo.tree_of(self.repo.resolve(f"refs/heads/{base}"))
        return merged.returncode == 0 and merged.stdout.strip() == base_tree

    @contextmanager
    def scratch(self, name: str, base: str, *, at: str | None = None) -> Iterator[Path]:
        """A detached checkout of ``base`` (or of the commit ``at``) for one phase,
        removed afterwards whatever is in it (it only ever holds an agent's drafts, which
        the phase has read, or a test run's output). One left by a crash, half made or
        not, is removed first."""
        # Ralph's state, but not the project's prompt overrides (versioned with its code).
        self.repo.exclude("/.ralph/*")
        self.repo.exclude("!/.ralph/prompts/")
        path = self.repo.path / SCRATCH / name
        with self.repo.worktree_lock():
            if path.exists() or entry_at(self.repo, path) is not None:
                discard(self.repo, path)
            path.parent.mkdir(parents=True, exist_ok=True)
            self.repo.git(
                "worktree",
                "add",
                "--detach",
                str(path),
                at or f"refs/heads/{base}",
                what=f"check out {at or base} for {name}",
            )
        try:
            yield path
        finally:
            with self.repo.worktree_lock():
                discard(self.repo, path)
