"""What changed in a working tree, as a comparable snapshot: how a phase proves that an
agent wrote only where it was allowed to."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from pathlib import Path

from ralph.errors import GitError
from ralph.git._files import git_dir_of, head_of
from ralph.git._repo import GitRepo

__all__ = ["changed_between", "checked_out", "held_still", "status_changes", "working_changes"]


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
    head = checked_out(repo, where)
    with repo.branch_lock(head) if head else nullcontext():
        yield where


def checked_out(repo: GitRepo, where: Path) -> str | None:
    """The branch checked out at ``where`` (None: a detached HEAD), read from its HEAD
    file where git's format allows (``_files``)."""
    git_dir = git_dir_of(where)
    found = head_of(git_dir) if git_dir is not None else None
    if found is not None:
        return found.branch
    asked = repo.run("symbolic-ref", "--quiet", "HEAD", cwd=where).stdout.strip()
    return asked.removeprefix("refs/heads/") if asked.startswith("refs/heads/") else None


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
    codes: dict[str, str] = {}
    skip_next = False
    for entry in entries:
        if skip_next:  # the source path of a rename
            skip_next = False
            continue
        code, name = entry[:2], entry[3:]
        skip_next = code[0] in "RC"
        codes[name] = code
    digests = _hashes(repo, where, [name for name in codes if (where / name).is_file()])
    return {name: f"{code}:{digests.get(name, '')}" for name, code in codes.items()}


def _hashes(repo: GitRepo, where: Path, names: list[str]) -> dict[str, str]:
    """The object id of each file's content, as git would store it: one ``hash-object``
    for them all (one each for a name holding a line break, which a line cannot)."""
    whole = [name for name in names if "\n" not in name]
    found: dict[str, str] = {}
    if whole:
        paths = "".join(f"{where / name}\n" for name in whole)
        hashed = repo.run("hash-object", "--stdin-paths", cwd=where, stdin=paths)
        digests = hashed.stdout.split()
        if hashed.returncode != 0 or len(digests) != len(whole):
            raise GitError(f"could not hash the changes in {where}: {hashed.stderr.strip()}")
        found.update(zip(whole, digests, strict=True))
    for name in names:
        if "\n" in name:
            found[name] = repo.git("hash-object", str(where / name), what=f"hash {name}", cwd=where)
    return found


def changed_between(
    before: Mapping[str, str], after: Mapping[str, str], *, allowed: Iterable[str] = ()
) -> list[str]:
    """Files whose state differs between two snapshots, except the ``allowed`` ones."""
    permitted = set(allowed)
    changed = {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}
    return sorted(changed - permitted)
