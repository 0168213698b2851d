"""What the project's own commands leave in a worktree, and how Ralph clears it.

A test run or a workspace hook writes files nobody asked for: ``__pycache__``,
``.pytest_cache``, coverage data, ``target/``, ``node_modules/.cache``. Where the
project's ``.gitignore`` does not list them, git sees them as new files, and they would
count as the agent's uncommitted work (and be committed by its next ``git add -A``). So
Ralph notes the untracked files before such a command and removes the new ones after
it. Files the agent wrote were there before the command, so they stay; a tracked file
the command changed stays too: an edit of the project is a person's to see.

A hook that prepares the worktree for the agent (``after_create``, ``before_run``:
installing dependencies) is there for what it leaves, so its new files stay and are
noted instead (in the worktree's git admin folder, which goes with the worktree): the
check for uncommitted work leaves them out.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ralph.git._files import common_dir_of, git_dir_of
from ralph.git._repo import GitRepo

__all__ = [
    "ByProducts",
    "by_products_removed",
    "new_files_noted",
    "noted_files",
    "noted_list",
    "untracked_files",
]

logger = logging.getLogger(__name__)

#: The files a preparing hook left, one per line, a file per worktree in this folder of
#: the repository's common git directory: out of the agent's reach (its worktree's own
#: admin folder is writable to it, for its commits).
_NOTED = "ralph-prepared-files"


class ByProducts:
    """The new files one command left, filled in once it ended (relative paths)."""

    def __init__(self) -> None:
        self.removed: list[str] = []


def untracked_files(repo: GitRepo, where: Path) -> frozenset[str] | None:
    """The files git does not track in the checkout at ``where`` (ignored ones aside);
    None when git cannot say (then nothing is removed)."""
    status = repo.run(
        "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", cwd=where
    )
    if status.returncode != 0:
        logger.warning("could not list untracked files", extra={"where": str(where)})
        return None
    return frozenset(entry[3:] for entry in status.stdout.split("\0") if entry.startswith("?? "))


@contextmanager
def by_products_removed(repo: GitRepo, where: Path) -> Iterator[ByProducts]:
    """Run the caller's command inside: the untracked files that appeared meanwhile are
    removed when it ends, however it ends."""
    found = ByProducts()
    before = untracked_files(repo, where)
    try:
        yield found
    finally:
        after = untracked_files(repo, where) if before is not None else None
        if before is not None and after is not None:
            found.removed = sorted(after - before)
            _remove(where, found.removed)
            if found.removed:
                logger.info(
                    "by-products removed",
                    extra={"where": str(where), "count": len(found.removed)},
                )


@contextmanager
def new_files_noted(repo: GitRepo, where: Path) -> Iterator[None]:
    """Run a preparing command inside: the untracked files that appeared meanwhile are
    added to the worktree's noted files (``noted_files``)."""
    before = untracked_files(repo, where)
    try:
        yield
    finally:
        after = untracked_files(repo, where) if before is not None else None
        noted = noted_list(repo, where)
        if before is not None and after is not None and noted is not None and after - before:
            known = noted_files(repo, where)
            noted.write_text("".join(f"{name}\n" for name in sorted(known | (after - before))))


def noted_files(repo: GitRepo, where: Path) -> frozenset[str]:
    """The files preparing hooks left in the worktree at ``where`` that are still
    untracked: not the agent's (a tracked file the agent changed is its own, listed or
    not)."""
    noted = noted_list(repo, where)
    try:
        text = noted.read_text() if noted is not None else ""
    except FileNotFoundError:
        return frozenset()
    listed = frozenset(line for line in text.splitlines() if line)
    return listed & (untracked_files(repo, where) or frozenset()) if listed else listed


def noted_list(repo: GitRepo, where: Path) -> Path | None:
    """Where the files preparing hooks left in the worktree at ``where`` are listed
    (removed with the worktree: a new one of the same name starts with none)."""
    own = git_dir_of(where)
    common = common_dir_of(own) if own is not None else None
    if own is None or common is None:  # not as git writes it: git's answer
        found = repo.run(
            "rev-parse", "--path-format=absolute", "--git-common-dir", "--git-dir", cwd=where
        )
        lines = found.stdout.split()
        if found.returncode != 0 or len(lines) != 2:
            return None
        common, own = Path(lines[0]), Path(lines[1])
    folder = common / _NOTED
    folder.mkdir(exist_ok=True)
    return folder / (own.name if own != common else "main")


def _remove(where: Path, names: list[str]) -> None:
    root = where.resolve()
    for name in names:
        path = where / name.rstrip("/")
        # A nested repository shows as its folder; anything else as a file or a link.
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        _prune_empty(root, path.parent)


def _prune_empty(root: Path, folder: Path) -> None:
    """Remove ``folder`` and its parents below ``root`` while they are empty (git keeps
    no empty folder, so none of them was anybody's work)."""
    while folder.resolve() != root and root in folder.resolve().parents:
        try:
            folder.rmdir()
        except OSError:  # not empty (or gone): what is above it is not empty either
            return
        folder = folder.parent
