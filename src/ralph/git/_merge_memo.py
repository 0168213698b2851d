"""What merging two commits gives, kept: a merge train asks it of each car several times.

A merge train builds its prefix (``GitRepo.merged_onto``), the code host then says
whether the next car still merges onto the base (``LocalCodeHost``), and lands each car
(``GitRepo.merge``): each was a ``git merge-tree`` of the same two commits, and each
landing made again the commit the train had made and tested. Two commits always merge
to the same tree, so the answer is kept (by repository: the commits are in its object
store), and so is each merge commit Ralph made, by what it was made of (base, head,
message, one parent or two): the landing moves the branch to the very commit tested.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ralph.errors import GitError

if TYPE_CHECKING:
    from ralph.git._repo import GitRepo

__all__ = ["made_merge", "merged_tree", "note_merge"]

_K = TypeVar("_K")
_V = TypeVar("_V")

#: How many answers of each kind are kept: a few trains' worth.
_KEPT = 512

_lock = threading.Lock()
#: (the repository's common git dir, base, head) -> the merged tree (None: they conflict).
_trees: OrderedDict[tuple[Path, str, str], str | None] = OrderedDict()
#: (common git dir, base, head, message, squash) -> the merge commit made of them.
_commits: OrderedDict[tuple[Path, str, str, str, bool], str] = OrderedDict()


def merged_tree(repo: GitRepo, base: str, head: str) -> str | None:
    """The tree of commit ``head`` merged onto commit ``base`` (full commit ids), None
    when they conflict; GitError when git cannot merge them (a commit missing)."""
    key = (repo.git_dir(), base, head)
    with _lock:
        if key in _trees:
            return _trees[key]
    result = repo.run("merge-tree", "--write-tree", "--no-messages", base, head)
    if result.returncode not in (0, 1):
        raise GitError(f"could not merge {head} onto {base}: {result.stderr.strip()}")
    tree = result.stdout.strip().splitlines()[0] if result.returncode == 0 else None
    _keep(_trees, key, tree)
    return tree


def note_merge(
    repo: GitRepo, base: str, head: str, message: str, *, squash: bool, commit: str
) -> None:
    """Ralph made ``commit``: ``head`` merged onto ``base`` with ``message``."""
    _keep(_commits, (repo.git_dir(), base, head, message, squash), commit)


def made_merge(repo: GitRepo, base: str, head: str, message: str, *, squash: bool) -> str | None:
    """The merge commit Ralph made of exactly these, if it made one."""
    with _lock:
        return _commits.get((repo.git_dir(), base, head, message, squash))


def _keep(kept: OrderedDict[_K, _V], key: _K, value: _V) -> None:
    with _lock:  # the sessions' threads share one repository
        kept[key] = value
        kept.move_to_end(key)
        if len(kept) > _KEPT:
            kept.popitem(last=False)
