"""What an agent must never change, snapshot before its attempt and compared after it:
git's control files (config, hooks, ``info/``, worktree configs, submodules' ones), which
run code for whoever uses the repository next and are Ralph's to put back; and the
person's checkout, ignored files included (``.env``, ``.ralph/``, build folders), which
is only named: a change there may be the person's own.

The OS sandbox refuses these writes outright; this is the second line, for agents that
run without it (``allow_unsandboxed``, the in-process scripted agent).
"""

from __future__ import annotations

import os
import shutil
import stat
from collections import deque
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "RALPH_EXCLUDES",
    "WALK_BUDGET",
    "CheckoutFiles",
    "Entry",
    "changed_checkout",
    "changed_control",
    "checkout_files",
    "control_files",
    "read_entry",
    "restore",
]

#: Lines Ralph itself adds to ``info/exclude`` (``GitRepo.exclude``): another worker may
#: add one while an agent runs, which is no breach.
RALPH_EXCLUDES = frozenset({"/worktrees/", "/.ralph/", "/.ralph/*", "!/.ralph/prompts/"})

#: Entries of the person's checkout a snapshot reads before it stops descending. The
#: walk is breadth-first, so the top of the checkout (``.env``, ``.ralph/``, config
#: files) is always covered and only the depths of a huge tree (``node_modules``) are
#: left out; the later snapshot leaves out the same folders, so nothing left out counts
#: as changed. 100,000 entries take about a second on a busy 2-core machine (20,000
#: about 0.15 s, git's status included): the check stays a small part of an attempt.
WALK_BUDGET = 100_000

#: What git writes in ``info/`` itself (``update-server-info`` after a repack): not
#: control files, and an agent's commit may trigger one.
_GIT_OWN_INFO = frozenset({"refs", "packs"})


@dataclass(frozen=True)
class Entry:
    """A control file as it was: small, so kept whole to be put back."""

    data: bytes
    mode: int = 0o644
    #: A symbolic link (``data`` is its target).
    link: bool = False


def read_entry(path: Path) -> Entry | None:
    """The file or link at ``path`` (None: nothing there, or a folder)."""
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            return Entry(os.fsencode(os.readlink(path)), link=True)
        if stat.S_ISREG(info.st_mode):
            return Entry(path.read_bytes(), stat.S_IMODE(info.st_mode))
    except OSError:  # gone meanwhile, or unreadable: as if absent
        pass
    return None


def _add(found: dict[str, Entry], path: Path, name: str) -> None:
    entry = read_entry(path)
    if entry is not None:
        found[name] = entry


def _add_tree(found: dict[str, Entry], root: Path, name: str, skip: Collection[str] = ()) -> None:
    if root.is_symlink() or not root.is_dir():
        _add(found, root, name)
        return
    for folder, dirs, files in os.walk(root):  # never follows a link
        here = Path(folder)
        prefix = f"{name}/{here.relative_to(root).as_posix()}".removesuffix("/.")
        for child in [*files, *(d for d in dirs if (here / d).is_symlink())]:
            if here == root and child in skip:
                continue
            _add(found, here / child, f"{prefix}/{child}")


def _add_git_dir(found: dict[str, Entry], git_dir: Path, prefix: str) -> None:
    for name in ("config", "config.worktree"):
        _add(found, git_dir / name, f"{prefix}{name}")
    _add_tree(found, git_dir / "hooks", f"{prefix}hooks")
    _add_tree(found, git_dir / "info", f"{prefix}info", skip=_GIT_OWN_INFO)
    modules = git_dir / "modules"
    if modules.is_dir() and not modules.is_symlink():
        _add_modules(found, modules, f"{prefix}modules/")


def _add_modules(found: dict[str, Entry], folder: Path, prefix: str) -> None:
    """Submodules' git dirs under ``modules/`` (a name may hold slashes: ``lib/x``)."""
    for child in sorted(folder.iterdir()):
        if child.is_symlink() or not child.is_dir():
            continue
        if (child / "HEAD").is_file():
            _add_git_dir(found, child, f"{prefix}{child.name}/")
        else:
            _add_modules(found, child, f"{prefix}{child.name}/")


def control_files(git_dir: Path) -> dict[str, Entry]:
    """Git's control files in the common ``git_dir``, by path relative to it: ``config``,
    ``config.worktree``, ``hooks/**``, ``info/**``, each worktree's ``config.worktree``,
    and the same for every submodule under ``modules/``."""
    found: dict[str, Entry] = {}
    _add_git_dir(found, git_dir, "")
    admin = git_dir / "worktrees"
    if admin.is_dir():
        for child in sorted(admin.iterdir()):
            _add(found, child / "config.worktree", f"worktrees/{child.name}/config.worktree")
    return found


def _ralph_excluded(before: Entry | None, after: Entry | None) -> bool:
    """``info/exclude`` grew by lines Ralph adds itself, and nothing else changed."""
    if after is None or after.link or (before is not None and before.link):
        return False
    old = before.data.decode(errors="replace").splitlines() if before else []
    new = after.data.decode(errors="replace").splitlines()
    return new[: len(old)] == old and set(new[len(old) :]) <= RALPH_EXCLUDES


def changed_control(before: Mapping[str, Entry], after: Mapping[str, Entry]) -> list[str]:
    """Control files added, removed or changed between two snapshots, except lines
    Ralph itself added to ``info/exclude``; ``worktrees/<id>/`` ones only for worktrees
    in both (other workers add and remove theirs while an agent runs)."""

    def admin(name: str) -> str | None:
        return name.rpartition("/")[0] if name.startswith("worktrees/") else None

    kept = {admin(n) for n in before} & {admin(n) for n in after}
    changed = []
    for name in sorted(before.keys() | after.keys()):
        old, new = before.get(name), after.get(name)
        if old == new or (admin(name) is not None and admin(name) not in kept):
            continue
        if name == "info/exclude" and _ralph_excluded(old, new):
            continue
        if old is None and _empty_placeholder(name, new):
            continue
        changed.append(name)
    return changed


def _empty_placeholder(name: str, entry: Entry | None) -> bool:
    """An empty ``config.worktree`` appearing: Claude Code's sandbox leaves one as a
    mount point in another worker's run; an empty file configures nothing."""
    return (
        entry is not None
        and not entry.link
        and not entry.data
        and name.rpartition("/")[2] == "config.worktree"
    )


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _put(path: Path, entry: Entry) -> None:
    if path.is_symlink() or path.exists():
        _remove(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if entry.link:
        os.symlink(os.fsdecode(entry.data), path)
    else:
        path.write_bytes(entry.data)
        path.chmod(entry.mode)


def restore(root: Path, before: Mapping[str, Entry], names: Collection[str]) -> None:
    """Put the files ``names`` under ``root`` back as ``before`` had them: new ones
    deleted (deepest first, so a planted link to a folder goes before what it hid),
    changed and deleted ones written again with their mode."""
    for name in sorted(names, reverse=True):
        if name not in before:
            _remove(root / name)
    for name in sorted(names):
        if name in before:
            _put(root / name, before[name])


# -- the person's checkout --------------------------------------------------------------

#: (size, mtime_ns, inode, mode): any write changes one, without reading the file.
Fingerprint = tuple[int, int, int, int]


@dataclass(frozen=True)
class CheckoutFiles:
    """The checkout's files git does not track, fingerprinted, and what git tracks."""

    files: Mapping[str, Fingerprint]
    #: Paths git tracks (its index): the status check covers them, and another worker's
    #: merge moves them while an agent runs.
    tracked: frozenset[str]
    #: Folders left unread once the walk reached its budget.
    unwalked: frozenset[str] = frozenset()


def _live_store(name: str) -> bool:
    """The SQLite store in ``.ralph/``, which Ralph's own threads write during a run."""
    folder, _, file = name.rpartition("/")
    return folder == ".ralph" and file.endswith((".db", ".db-wal", ".db-shm", ".db-journal"))


def checkout_files(
    root: Path,
    tracked: frozenset[str],
    *,
    skip: Collection[str] = (),
    budget: int | None = WALK_BUDGET,
    unwalked: Collection[str] = (),
) -> CheckoutFiles:
    """Fingerprints of every file under ``root`` that ``tracked`` does not hold, leaving
    out the paths in ``skip`` (relative, whole subtrees), the live store and the folders
    in ``unwalked``; once ``budget`` entries were read, the remaining folders are left
    unread and listed (None: no budget)."""
    files: dict[str, Fingerprint] = {}
    queue: deque[str] = deque([""])
    left: set[str] = set()
    seen = 0
    while queue:
        folder = queue.popleft()
        if budget is not None and seen >= budget:
            left.add(folder)
            continue
        try:
            with os.scandir(root / folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:  # removed meanwhile, or unreadable
            continue
        for entry in entries:
            name = f"{folder}/{entry.name}" if folder else entry.name
            if name in skip or _live_store(name):
                continue
            seen += 1
            try:
                if entry.is_dir(follow_symlinks=False):
                    if name not in unwalked:
                        queue.append(name)
                    continue
                if name in tracked:
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            files[name] = (info.st_size, info.st_mtime_ns, info.st_ino, info.st_mode)
    return CheckoutFiles(files, tracked, frozenset(left))


def changed_checkout(before: CheckoutFiles, after: CheckoutFiles) -> list[str]:
    """Untracked files (ignored ones included) added, removed or written in between;
    files git tracked at either time are the status check's."""
    tracked = before.tracked | after.tracked
    return sorted(
        name
        for name in before.files.keys() | after.files.keys()
        if name not in tracked and before.files.get(name) != after.files.get(name)
    )
