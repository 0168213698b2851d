"""The home a confined process sees: never the person's. The test command and hooks get
an empty one; an agent a folder of its run's own holding a copy of its CLI's state (its
login, settings, sessions), writable as a copy: whatever it writes there (a hook in
``~/.claude/settings.json``) is gone with the run, and no other credential of the
person's (``~/.npmrc``, ``~/.pypirc``, ``~/.gnupg``, another CLI's login) is in it."""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

__all__ = ["TOOLCHAINS", "copy_state"]

#: Under the home, shown read-only in every home: the installed tools and the packages
#: they fetched, which an offline test run needs and which hold no credential.
TOOLCHAINS = (
    ".local/bin",
    ".local/lib",
    ".local/share/uv/python",
    ".cargo/bin",
    ".cargo/registry",
    ".cargo/git",
    ".rustup",
    "go/pkg/mod",
    ".m2/repository",
    ".nvm",
    ".pyenv",
)
#: Inside a CLI's state folder, left out of the copy: past sessions and logs, which grow
#: without bound and which a new run does not read.
_BULK = frozenset({"projects", "sessions", "file-history", "debug", "log", "logs", "tmp"})


def copy_state(home: Path, into: Path, names: Iterable[str]) -> None:
    """Copy the files and folders ``names`` (relative to ``home``) that exist into the
    new folder ``into``; links stay links, so a link out of the home copies nothing."""
    into.mkdir(mode=0o700, exist_ok=True)
    for name in names:
        source, target = home / name, into / name
        if source.is_symlink() or not source.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():

            def bulk(folder: str, names: list[str], top: Path = source) -> set[str]:
                return {name for name in names if name in _BULK} if Path(folder) == top else set()

            shutil.copytree(source, target, symlinks=True, ignore=bulk, dirs_exist_ok=True)
        else:
            shutil.copy2(source, target)
