"""What a crash leaves of a worktree, and how Ralph clears it.

``git worktree add`` registers the worktree (``.git/worktrees/<id>``, with a ``locked``
file saying "initializing"), then checks the files out under ``index.lock``, then drops
the lock. A process killed in between leaves a worktree git still holds locked, with no
index or a partial checkout: ``worktree prune`` skips it and ``worktree add`` refuses its
path. Ralph serialises its own worktree changes (``GitRepo.worktree_lock``), so a
worktree still "initializing" while Ralph holds that lock has no live creator.

Callers hold ``worktree_lock``.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from ralph.git._repo import GitRepo, WorktreeEntry

__all__ = ["INITIALIZING", "admin_dir", "discard", "entry_at", "why_untrustworthy"]

logger = logging.getLogger(__name__)

#: The reason ``git worktree add`` locks a worktree with while it creates it.
INITIALIZING = "initializing"


def entry_at(repo: GitRepo, path: Path) -> WorktreeEntry | None:
    """The worktree registered at ``path``, if any (its folder may be gone)."""
    where = path.resolve()
    return next((entry for entry in repo.worktree_entries() if entry.path == where), None)


def admin_dir(repo: GitRepo, path: Path) -> Path | None:
    """The worktree's folder under ``.git/worktrees`` (found by the ``gitdir`` file that
    points back at ``path``, which git writes before anything else of the worktree)."""
    target = (path / ".git").resolve()
    for gitdir in sorted((repo.git_dir() / "worktrees").glob("*/gitdir")):
        try:
            pointed = Path(gitdir.read_text().strip())
        except OSError:
            continue
        if pointed.resolve() == target:
            return gitdir.parent
    return None


def why_untrustworthy(repo: GitRepo, entry: WorktreeEntry) -> str | None:
    """Why the worktree cannot be used as it is (a crash interrupted its creation or a
    git command in it); None when it is whole."""
    if entry.locked == INITIALIZING:
        return "git was interrupted while creating it"
    admin = admin_dir(repo, entry.path)
    if admin is None or not (entry.path / ".git").is_file():
        return "its git files are missing"
    if (admin / "index.lock").exists():
        return "a git command was interrupted in it (index.lock is left)"
    if not (admin / "index").exists():
        return "its checkout never finished (it has no index)"
    return None


def discard(repo: GitRepo, path: Path) -> None:
    """Remove the worktree at ``path`` and what git keeps of it, whatever state it is in
    (locked, half made, folder gone): unlock, remove twice forced, then prune. A whole
    worktree takes one git: nothing to unlock, nothing left to prune."""
    admin = admin_dir(repo, path)
    if admin is None or (admin / "locked").exists():
        repo.run("worktree", "unlock", str(path))  # fails harmlessly when not locked
    if repo.run("worktree", "remove", "--force", "--force", str(path)).returncode == 0:
        logger.info("worktree discarded", extra={"path": str(path)})
        return
    shutil.rmtree(path, ignore_errors=True)
    admin = admin_dir(repo, path)
    if admin is not None:  # prune skips a worktree whose gitdir points nowhere valid
        (admin / "locked").unlink(missing_ok=True)
    repo.run("worktree", "prune")
    logger.info("worktree discarded", extra={"path": str(path)})
