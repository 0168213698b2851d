"""A branch's files read without a checkout, from what is known of its commit.

Phases read the documents under ``thoughts/`` on the base branch again and again (a
listing to find an issue's plan, the plan, its research, the critique, ...): one ``git
show`` or ``git ls-tree`` each was most of a phase's git processes. A commit never
changes, and neither does a blob, so what was read of one is kept, for every repository
of the process alike (ids name the same content wherever they are): a folder's listing
takes one ``git ls-tree`` per commit, the text of a file one ``git cat-file`` the first
time its blob is read, and a commit's tree is asked once (never for a commit Ralph made:
it knows the tree it made it from). Only where the branch points is asked each time, and
that is read from the ref's own file, as git reads it (``git rev-parse`` when the
repository keeps its refs some other way).
"""

from __future__ import annotations

import os
import posixpath
import re
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.errors import GitError

if TYPE_CHECKING:
    from ralph.git._repo import GitRepo

__all__ = [
    "commit_of",
    "files_at",
    "note_tree",
    "read_at",
    "ref_from_files",
    "refs_in_files",
    "tree_at",
]

_OID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
#: Names git refuses for a branch, or that would read a file outside refs/: git's answer.
_UNSAFE_REF = re.compile(r"\.\.|/\.|//|\\|\.lock$|/$|[\x00-\x20~^:?*\[]")
#: How many listings (commit, folder) are kept: the base branch's last few commits.
_LISTINGS_KEPT = 16

#: A folder's listing at a commit: path -> its blob id (None: not a file, a submodule).
_Listing = dict[str, str | None]

_lock = threading.Lock()
_listings: OrderedDict[tuple[str, str], _Listing] = OrderedDict()
#: The text of the blobs read (of kept listings only).
_blobs: dict[str, str] = {}
#: Commit -> its tree, for the commits a run makes and compares.
_trees: dict[str, str] = {}
_TREES_KEPT = 1024


def commit_of(repo: GitRepo, branch: str) -> str | None:
    """The commit ``branch`` points at, None when there is no such branch."""
    ref = f"refs/heads/{branch}"
    found = ref_from_files(repo.git_dir(), ref)
    if found is not None or _absent(repo.git_dir(), ref):
        return found
    asked = repo.run("rev-parse", "--verify", "--quiet", f"refs/heads/{branch}^{{commit}}")
    return asked.stdout.strip() if asked.returncode == 0 else None


def tree_at(repo: GitRepo, commit: str) -> str:
    """The tree of ``commit`` (a full commit id)."""
    with _lock:
        known = _trees.get(commit)
    if known is not None:
        return known
    tree = repo.git("rev-parse", f"{commit}^{{tree}}", what="read a commit's tree")
    note_tree(commit, tree)
    return tree


def note_tree(commit: str, tree: str) -> None:
    """Remember that ``commit`` holds ``tree`` (Ralph just made it so)."""
    with _lock:
        if len(_trees) >= _TREES_KEPT:
            _trees.clear()
        _trees[commit] = tree


def files_at(repo: GitRepo, commit: str, folder: str) -> list[str]:
    """The paths of the files under ``folder`` at ``commit``."""
    return list(_listing(repo, commit, folder.strip("/")))


def read_at(repo: GitRepo, commit: str, path: str) -> str | None:
    """The text of ``path`` at ``commit``, None when it has no such file."""
    folder, slash, _ = path.partition("/")
    if not slash or posixpath.normpath(path) != path:
        # A file at the top, or a path git would resolve its own way: ask git for it.
        shown = repo.run("show", f"{commit}:{path}")
        return shown.stdout if shown.returncode == 0 else None
    listing = _listing(repo, commit, folder)
    blob = listing.get(path)
    if blob is None:
        return None
    with _lock:
        text = _blobs.get(blob)
    if text is None:
        read = repo.run("cat-file", "blob", blob)
        if read.returncode != 0:
            raise GitError(f"could not read {path} at {commit[:7]}: {read.stderr.strip()}")
        text = read.stdout
        with _lock:
            _blobs[blob] = text
    return text


def _listing(repo: GitRepo, commit: str, folder: str) -> _Listing:
    key = (commit, folder)
    with _lock:
        if key in _listings:
            _listings.move_to_end(key)
            return _listings[key]
    listed = repo.run("ls-tree", "-r", "-z", commit, "--", folder)
    if listed.returncode != 0:
        raise GitError(f"could not list {folder} at {commit[:7]}: {listed.stderr.strip()}")
    listing: _Listing = {}
    for entry in listed.stdout.split("\0"):
        meta, tab, path = entry.partition("\t")
        if tab:
            _mode, kind, blob = meta.split(" ")
            listing[path] = blob if kind == "blob" else None
    with _lock:
        _listings[key] = listing
        if len(_listings) > _LISTINGS_KEPT:
            _listings.popitem(last=False)
            kept = {blob for each in _listings.values() for blob in each.values()}
            for gone in _blobs.keys() - kept:
                del _blobs[gone]
    return listing


#: packed-refs as last parsed: (its stat) -> ref -> commit.
_packed: dict[Path, tuple[tuple[int, int, int], dict[str, str]]] = {}


def ref_from_files(git_dir: Path, ref: str) -> str | None:
    """The commit id ``ref`` names, read as git's files backend stores it: a loose file,
    else a line of packed-refs. None when that is not known this way (no such ref,
    a symbolic ref, refs kept in a reftable): ask git."""
    if (git_dir / "reftable").is_dir() or _UNSAFE_REF.search(ref):
        return None
    try:
        loose = (git_dir / ref).read_text().strip()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        pass
    except (OSError, UnicodeDecodeError):
        return None
    else:
        return loose if _OID.fullmatch(loose) else None
    return (_packed_refs(git_dir / "packed-refs") or {}).get(ref)


def refs_in_files(git_dir: Path, folder: str, start: str) -> list[str] | None:
    """The refs right in ``folder`` (``refs/heads/feature``) whose names begin with
    ``start``, read as git's files backend stores them: loose files and lines of
    packed-refs. None when that is not known this way (refs in a reftable): ask git."""
    if (git_dir / "reftable").is_dir() or _UNSAFE_REF.search(f"{folder}/{start}x"):
        return None
    found: set[str] = set()
    try:
        with os.scandir(git_dir / folder) as entries:
            for entry in entries:
                name = entry.name
                # A ref is written to its .lock, then renamed: a .lock is none yet.
                if name.startswith(start) and not name.endswith(".lock") and entry.is_file():
                    found.add(f"{folder}/{name}")
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError:
        return None
    packed = _packed_refs(git_dir / "packed-refs")
    if packed is None:
        return None
    prefix = f"{folder}/{start}"
    found.update(r for r in packed if r.startswith(prefix) and "/" not in r[len(folder) + 1 :])
    return sorted(found)


def _absent(git_dir: Path, ref: str) -> bool:
    """Whether git's files backend holds no ``ref``: no loose file, and no line of a
    packed-refs read whole. False when unsure (then git is asked)."""
    if (git_dir / "reftable").is_dir() or _UNSAFE_REF.search(ref):
        return False
    try:
        os.lstat(git_dir / ref)
    except (FileNotFoundError, NotADirectoryError):
        packed = _packed_refs(git_dir / "packed-refs")
        return packed is not None and ref not in packed
    except OSError:
        return False
    return False


def _packed_refs(path: Path) -> dict[str, str] | None:
    """packed-refs' refs (none when there is no such file); None when it cannot be
    read."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return {}
    except OSError:
        return None
    key = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
    with _lock:
        known = _packed.get(path)
    if known is not None and known[0] == key:
        return known[1]
    refs = {}
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError):
        return None
    for line in lines:
        oid, _, name = line.partition(" ")
        if _OID.fullmatch(oid) and name:
            refs[name] = oid
    with _lock:
        if len(_packed) > _LISTINGS_KEPT:
            _packed.clear()
        _packed[path] = (key, refs)
    return refs
