"""The files a checkout's index tracks, listed by git once per version of the index:
git writes an index anew and renames it over the old one, so its inode, size and
change times tell whether the listing kept from it still holds.

The guard around every agent attempt needs the listing twice, and the index changes only
when something is staged, committed or merged into the checkout: one ``git ls-files``
per change instead of one per look.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ralph.errors import GitError
from ralph.git._files import git_dir_of, redirected

if TYPE_CHECKING:
    from pathlib import Path

    from ralph.git._repo import GitRepo

__all__ = ["tracked_files"]

#: Indexes whose listing is kept (a process works on a repository or two).
_KEPT = 8

_Stamp = tuple[int, int, int, int]

_lock = threading.Lock()
_listings: dict[Path, tuple[_Stamp, frozenset[str]]] = {}


def tracked_files(repo: GitRepo) -> frozenset[str]:
    """The paths the index of the checkout at ``repo.path`` holds (``ls-files``)."""
    own = None if redirected() else git_dir_of(repo.path)
    index = own / "index" if own is not None else None
    stamp = _stamp(index) if index is not None else None
    if index is not None and stamp is not None:
        with _lock:
            kept = _listings.get(index)
        if kept is not None and kept[0] == stamp:
            return kept[1]
    # Stamped before listing: an index written meanwhile is listed again next time.
    listed = repo.run("--no-optional-locks", "ls-files", "-z", "--cached")
    if listed.returncode != 0:
        raise GitError(f"could not list the files of {repo.path}: {listed.stderr.strip()}")
    found = frozenset(name for name in listed.stdout.split("\0") if name)
    if index is not None and stamp is not None:
        with _lock:
            if len(_listings) >= _KEPT:
                _listings.clear()
            _listings[index] = (stamp, found)
    return found


def _stamp(index: Path) -> _Stamp | None:
    try:
        found = index.stat()
    except OSError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)
