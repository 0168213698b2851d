"""A branch's commit read from the ref files themselves, without starting git: what
makes reads of a branch's files cacheable (the text at a commit never changes), at the
price of a file read instead of a process.

Git keeps a branch as a loose file (``refs/heads/<name>``, one commit id) or, once
packed, as a line of ``packed-refs``; a loose file wins over a packed line. Anything
else (the reftable format, a symbolic ref, a name git would refuse) is "not known", and
the caller asks git as before."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["branch_tip"]

_COMMIT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
#: Branch names this reader trusts to be a path under refs/heads (git allows more).
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*(?:/[A-Za-z0-9_][A-Za-z0-9._-]*)*")


def branch_tip(git_dir: Path, branch: str) -> str | None:
    """The commit ``branch`` points at, from the common git directory ``git_dir``; None
    when it cannot be told from the files (then ask git)."""
    if not _PLAIN_NAME.fullmatch(branch) or ".." in branch or branch.endswith(".lock"):
        return None
    if (git_dir / "reftable").exists():
        return None
    ref = f"refs/heads/{branch}"
    try:
        loose = (git_dir / ref).read_text(encoding="ascii").strip()
    except FileNotFoundError:
        loose = None
    except (OSError, UnicodeDecodeError):
        return None
    if loose is not None:
        return loose if _COMMIT_ID.fullmatch(loose) else None
    try:
        packed = (git_dir / "packed-refs").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    for line in packed.splitlines():
        oid, _, name = line.partition(" ")
        if name == ref and _COMMIT_ID.fullmatch(oid):
            return oid
    return None
