"""Moving a branch that is checked out, so that a crash never leaves the checkout behind
a lie: the person's index showing Ralph's commit as their own staged changes.

The checkout follows first (``read-tree -m -u old new``: every uncommitted change of the
person stays), then the branch moves (``update-ref``, a compare-and-set). A crash in
between would leave the index at the new tree under the old HEAD, so an intent naming
both commits is written in the git directory first and removed once the branch has
moved. Whoever takes the branch's lock next finds a left intent and puts the checkout
back to the old tree (the branch never moved), before anything else touches the branch.
Putting back is the same two-tree merge reversed and is done only when the index holds
exactly the new tree where the two differ: a crash before the follow leaves nothing to
undo.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.errors import GitError

if TYPE_CHECKING:
    from ralph.git._repo import GitRepo

__all__ = ["move_branch", "recover"]

logger = logging.getLogger(__name__)


def _intent(repo: GitRepo, branch: str) -> Path:
    return repo.git_dir() / f"ralph-follow-{branch.replace('/', '-')}.json"


def move_branch(repo: GitRepo, branch: str, old: str, new: str) -> bool:
    """Move ``branch`` from ``old`` to ``new`` if it is still at ``old``; a checkout of
    it follows, or the move is refused before anything changed (MergeRefused). False
    when the branch had moved meanwhile (nothing changed). The caller holds the
    branch's lock."""
    ref = f"refs/heads/{branch}"
    checkout = repo.worktree_of(branch)
    if checkout is None:
        return repo.run("update-ref", ref, new, old).returncode == 0
    intent = _intent(repo, branch)
    written = intent.with_suffix(".tmp")
    written.write_text(
        json.dumps({"branch": branch, "checkout": str(checkout), "old": old, "new": new})
    )
    os.replace(written, intent)  # whole or absent, whenever the process dies
    moved = False
    try:
        repo.follow(checkout, branch, old, new)
        moved = repo.run("update-ref", ref, new, old).returncode == 0
    finally:
        if moved or _put_back(repo, checkout, old, new, quiet=True):
            intent.unlink(missing_ok=True)
    return moved


def recover(repo: GitRepo, branch: str) -> None:
    """Undo what an interrupted ``move_branch`` left in the checkout of ``branch``. The
    caller holds the branch's lock, so the intent's writer is gone."""
    intent = _intent(repo, branch)
    try:
        left = json.loads(intent.read_text())
    except FileNotFoundError:
        return
    except ValueError:  # never written whole (os.replace): nothing was done after it
        intent.unlink(missing_ok=True)
        return
    checkout, old, new = Path(left["checkout"]), left["old"], left["new"]
    tip = repo.run("rev-parse", "--verify", "-q", f"refs/heads/{branch}").stdout.strip()
    if tip == old and checkout.is_dir():
        _put_back(repo, checkout, old, new, quiet=False)
    elif tip != new:
        logger.warning("left a moved branch alone", extra={"branch": branch, "tip": tip})
    intent.unlink(missing_ok=True)


def _put_back(repo: GitRepo, checkout: Path, old: str, new: str, *, quiet: bool) -> bool:
    """Bring the checkout's index and files from ``new`` back to ``old`` where it holds
    ``new`` (True when it is at ``old`` afterwards). Loud: a GitError that says what to
    run; quiet: False, so the intent stays for the next run."""
    changed = repo.run("diff-tree", "-r", "--no-renames", "--name-only", "-z", old, new)
    paths = [p for p in changed.stdout.split("\0") if p]
    if not paths or not _index_holds(repo, checkout, new, paths):
        return True
    undone = repo.run("read-tree", "-m", "-u", new, old, cwd=checkout)
    if undone.returncode == 0:
        logger.warning("put a checkout back", extra={"checkout": str(checkout), "commit": old})
        return True
    if quiet:
        logger.error("could not put a checkout back", extra={"checkout": str(checkout)})
        return False
    raise GitError(
        f"Ralph was interrupted while updating {checkout} and cannot put its index back "
        f"({undone.stderr.strip() or 'git failed'}); run `git read-tree -m -u {new} {old}` "
        "there, then retry"
    )


def _index_holds(repo: GitRepo, checkout: Path, tree: str, paths: list[str]) -> bool:
    """Whether the checkout's index has exactly ``tree``'s version of every path."""
    staged = repo.run("ls-files", "--stage", "-z", cwd=checkout).stdout
    listed = repo.run("ls-tree", "-r", "-z", tree, cwd=checkout).stdout
    index = {e.split("\t", 1)[1]: e.split()[:2] for e in staged.split("\0") if "\t" in e}
    wanted = {
        e.split("\t", 1)[1]: [e.split()[0], e.split()[2]] for e in listed.split("\0") if "\t" in e
    }
    return all(index.get(path) == wanted.get(path) for path in paths)
