"""What a command may not change when it refuses its input: a store's tables, a
folder's files, a repository's refs."""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import subprocess
from pathlib import Path


def files(folder: Path) -> dict[str, str]:
    """Every file's digest (the store's own files aside: they are compared by content)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_file() and not relative.startswith(".ralph/ralph.db"):
            if relative not in (".git/index", ".git/FETCH_HEAD"):  # git refreshes stat data
                found[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_dir():
            found[relative + "/"] = ""
    return found


def refs(repo: Path) -> str:
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
        return done.stdout

    return git("for-each-ref") + git("symbolic-ref", "-q", "HEAD") + git("worktree", "list")


def tables(database: Path) -> dict[str, list[str]]:
    with contextlib.closing(sqlite3.connect(database)) as db:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {name: sorted(map(repr, db.execute(f'SELECT * FROM "{name}"'))) for name in names}
