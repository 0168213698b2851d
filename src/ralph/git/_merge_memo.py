"""What merging two commits gives, kept: a merge train asks it of each car several times.

A merge train builds its prefix (``GitRepo.merged_onto``), the code host then says
whether the next car still merges onto the base (``LocalCodeHost``), and lands each car
(``GitRepo.merge``): each was a ``git merge-tree`` of the same two commits, and each
landing made again the commit the train had made and tested. Two commits always merge
to the same tree, so the answer is kept (by repository: the commits are in its object
store), and so is each merge commit Ralph made, by what it was made of (base, head,
message, one parent or two): the landing moves the branch to the very commit tested.
Each move is kept too (a merge's first parent is where the base was): whether a car's
merge is on the base the train moved on past it is then known without asking git.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ralph.errors import GitError

if TYPE_CHECKING:
    from ralph.git._repo import GitRepo

__all__ = [
    "forget_merge",
    "forget_tree",
    "known_ancestor",
    "made_merge",
    "merged_tree",
    "note_merge",
    "note_moved",
]

_K = TypeVar("_K")
_V = TypeVar("_V")

#: How many answers of each kind are kept: a few trains' worth.
_KEPT = 512

_lock = threading.Lock()
#: (the repository's common git dir, base, head) -> the merged tree (None: they conflict).
_trees: OrderedDict[tuple[Path, str, str], str | None] = OrderedDict()
#: (common git dir, base, head, message, squash) -> the merge commit made of them.
_commits: OrderedDict[tuple[Path, str, str, str, bool], str] = OrderedDict()
#: (common git dir, a commit Ralph moved a branch to) -> the commit the branch was at
#: (its first parent).
_moved_from: OrderedDict[tuple[Path, str], str] = OrderedDict()


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


def forget_tree(repo: GitRepo, base: str, head: str) -> None:
    """The kept tree of ``head`` merged onto ``base`` is gone (git pruned it)."""
    with _lock:
        _trees.pop((repo.git_dir(), base, head), None)


def note_merge(
    repo: GitRepo, base: str, head: str, message: str, *, squash: bool, commit: str
) -> None:
    """Ralph made ``commit``: ``head`` merged onto ``base`` with ``message``. The last one
    made is kept: a train that took over another's builds its prefix again and tests that."""
    _keep(_commits, (repo.git_dir(), base, head, message, squash), commit)


def forget_merge(repo: GitRepo, base: str, head: str, message: str, *, squash: bool) -> None:
    """The kept merge commit of these is gone (git pruned it)."""
    with _lock:
        _commits.pop((repo.git_dir(), base, head, message, squash), None)


def made_merge(repo: GitRepo, base: str, head: str, message: str, *, squash: bool) -> str | None:
    """The merge commit Ralph made of exactly these, if it made one."""
    with _lock:
        return _commits.get((repo.git_dir(), base, head, message, squash))


def note_moved(repo: GitRepo, old: str, new: str) -> None:
    """Ralph moved a branch of ``repo`` from ``old`` to ``new``, a commit whose first
    parent is ``old``."""
    _keep(_moved_from, (repo.git_dir(), new), old)


def known_ancestor(repo: GitRepo, ancestor: str, descendant: str) -> bool:
    """Whether ``ancestor`` is known to be one of ``descendant``'s (another commit),
    from the moves Ralph made (a car's rider asks whether its merge is on the base the
    train moved on past it). False: not known; git may know better."""
    where = repo.git_dir()
    with _lock:
        at = _moved_from.get((where, descendant))
        for _ in range(_KEPT):
            if at is None:
                return False
            if at == ancestor:
                return True
            at = _moved_from.get((where, at))
    return False


def _keep(kept: OrderedDict[_K, _V], key: _K, value: _V) -> None:
    with _lock:  # the sessions' threads share one repository
        kept[key] = value
        kept.move_to_end(key)
        if len(kept) > _KEPT:
            kept.popitem(last=False)
