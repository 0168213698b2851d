"""Answers read from the repository's own files, where git's formats are stable: which
branch a checkout has (its ``HEAD``: ``ref: refs/heads/X``, or a commit id when
detached), where a checkout's git directories are (a linked worktree's ``.git`` file:
``gitdir: PATH``; its admin folder's ``commondir``), and the worktree list
(``worktrees/<id>/gitdir``, ``HEAD`` and ``locked``). Each is a few file reads where a
git process costs milliseconds, and git itself writes these files whole (a lock file
renamed over them), so a read never sees one half-written.

Each function answers None whenever anything is unusual (a symbolic-link HEAD, refs kept
in a reftable, a bare repository, a relative path, ``GIT_DIR`` and its kin set, a file
that is not as git writes it): the caller asks git then.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Head", "common_dir_of", "git_dir_of", "head_of", "redirected", "worktrees_in"]

#: Variables that make git look elsewhere than a checkout's ``.git``.
_REDIRECTS = ("GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")
#: Patterns ``re`` compiles (and caches) when first used, not at import.
_OID = r"[0-9a-f]{40}(?:[0-9a-f]{24})?"
#: A branch name as git makes one, and nothing that would need quoting in its listing.
_BRANCH = r"refs/heads/([\x21-\x7e]+)"
#: What a repository that keeps its refs in a reftable has in its HEAD file.
_REFTABLE_HEAD = "ref: refs/heads/.invalid"
#: A lock reason git lists as it is (anything else it quotes).
_PLAIN_REASON = r"[\x20-\x7e]*"


@dataclass(frozen=True)
class Head:
    """What a checkout's HEAD names."""

    #: The checked-out branch (None: a detached HEAD).
    branch: str | None


def redirected() -> bool:
    """Whether git is told to look elsewhere than the checkout's ``.git``."""
    return any(name in os.environ for name in _REDIRECTS)


def git_dir_of(checkout: Path) -> Path | None:
    """The git directory of the checkout whose top is ``checkout``: its ``.git``
    folder, or the admin folder a linked worktree's ``.git`` file names."""
    if redirected():
        return None
    dot = checkout / ".git"
    try:
        mode = os.lstat(dot).st_mode
        if stat.S_ISDIR(mode):
            return dot.resolve() if os.path.lexists(dot / "HEAD") else None
        if not stat.S_ISREG(mode):
            return None
        text = dot.read_text()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir: "):
        return None
    named = Path(text.removeprefix("gitdir: ").rstrip("\n"))
    if not named.is_absolute():
        return None
    return named.resolve() if os.path.lexists(named / "HEAD") else None


def common_dir_of(git_dir: Path) -> Path | None:
    """The common git directory of a checkout's git directory (itself, but for a
    linked worktree's admin folder: the one its ``commondir`` file names)."""
    try:
        named = (git_dir / "commondir").read_text().rstrip("\n")
    except FileNotFoundError:
        return git_dir
    except (OSError, UnicodeDecodeError):
        return None
    return (git_dir / named).resolve() if named else None


def head_of(git_dir: Path) -> Head | None:
    """What the HEAD of the checkout whose git directory is ``git_dir`` names."""
    if redirected():
        return None
    try:
        if not stat.S_ISREG(os.lstat(git_dir / "HEAD").st_mode):
            return None  # a symbolic link (core.preferSymlinkRefs): git's to follow
        text = (git_dir / "HEAD").read_text().rstrip("\n")
    except (OSError, UnicodeDecodeError):
        return None
    if text == _REFTABLE_HEAD:
        return None
    if re.fullmatch(_OID, text):
        return Head(None)
    branch = re.fullmatch(_BRANCH, text.removeprefix("ref: ")) if text.startswith("ref: ") else None
    return Head(branch.group(1)) if branch else None


#: A worktree as listed: (path, branch or None when detached, lock reason or None).
_Listed = tuple[Path, str | None, str | None]


def worktrees_in(common: Path) -> list[_Listed] | None:
    """The worktrees of the repository whose common git directory is ``common``, as
    ``git worktree list --porcelain`` lists them: (path, branch or None when detached,
    lock reason or None when unlocked), the main worktree first."""
    if redirected() or common.name != ".git" or (common / "reftable").exists():
        return None  # a bare repository, or one git must be asked about
    main = head_of(common)
    if main is None:
        return None
    found: list[_Listed] = [(common.parent.resolve(), main.branch, None)]
    try:
        admins = sorted((common / "worktrees").iterdir())
    except FileNotFoundError:
        return found
    except OSError:
        return None
    for admin in admins:
        try:
            # git skips an entry it cannot read the gitdir of, as here.
            pointer = (admin / "gitdir").read_text().rstrip()
        except (FileNotFoundError, NotADirectoryError):
            continue
        except (OSError, UnicodeDecodeError):
            return None
        if not pointer:
            continue
        path = Path(pointer.removesuffix("/.git"))
        head = head_of(admin)
        if not path.is_absolute() or head is None:
            return None
        try:
            locked: str | None = (admin / "locked").read_text().strip()
        except FileNotFoundError:
            locked = None
        except (OSError, UnicodeDecodeError):
            return None
        if locked is not None and not re.fullmatch(_PLAIN_REASON, locked):
            return None  # git would list it quoted
        found.append((path.resolve(), head.branch, locked))
    return found
