"""What changed in a working tree, as a comparable snapshot: how a phase proves that an
agent wrote only where it was allowed to."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from pathlib import Path

from ralph.errors import GitError
from ralph.git._repo import GitRepo

__all__ = ["changed_between", "held_still", "status_changes", "working_changes"]


def working_changes(repo: GitRepo, path: Path | None = None) -> dict[str, str]:
    """Every file of the checkout at ``path`` that differs from its HEAD or is untracked
    (ignored files excepted), with a fingerprint of its status and content: a later
    snapshot differs for any file written in between."""
    with held_still(repo, path) as where:
        return status_changes(repo, where)


@contextmanager
def held_still(repo: GitRepo, path: Path | None = None) -> Iterator[Path]:
    """Hold the checkout at ``path`` (the repository's own by default) still: a document
    commit or a merge moves a checkout of its branch in two steps (files, then the
    branch) under the branch's lock, and a snapshot in between would count its files as
    changed, so it waits for that lock."""
    where = path or repo.path
    head = repo.run("symbolic-ref", "--quiet", "--short", "HEAD", cwd=where).stdout.strip()
    with repo.branch_lock(head) if head else nullcontext():
        yield where


def status_changes(repo: GitRepo, where: Path) -> dict[str, str]:
    """``working_changes`` for a caller already holding the checkout still."""
    # Only reading: without --no-optional-locks, status refreshes the index under
    # index.lock, and a document commit moving this checkout at that moment fails.
    status = repo.run(
        "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", cwd=where
    )
    if status.returncode != 0:
        raise GitError(f"could not read changes in {where}: {status.stderr.strip()}")
    # Not stripped: an entry starts with its two-letter status, which may be a space.
    entries = [entry for entry in status.stdout.split("\0") if entry]
    found: dict[str, str] = {}
    skip_next = False
    for entry in entries:
        if skip_next:  # the source path of a rename
            skip_next = False
            continue
        code, name = entry[:2], entry[3:]
        skip_next = code[0] in "RC"
        file = where / name
        digest = ""
        if file.is_file():
            digest = repo.git("hash-object", str(file), what=f"hash {name}", cwd=where)
        found[name] = f"{code}:{digest}"
    return found


def changed_between(
    before: Mapping[str, str], after: Mapping[str, str], *, allowed: Iterable[str] = ()
) -> list[str]:
    """Files whose state differs between two snapshots, except the ``allowed`` ones."""
    permitted = set(allowed)
    changed = {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}
    return sorted(changed - permitted)
