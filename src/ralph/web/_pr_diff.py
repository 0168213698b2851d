"""A pull request's diff as its issue page shows it: the files it changes, each with its
added and removed lines counted and its hunks coloured. Read from the project's own git
(the local tracker's pull requests are its branches; a GitHub one's head is there once
fetched or made here): what the branch changed since it left its base, or, once merged,
what it brought in. None when this clone does not have the commits."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ralph.git import GitRepo
from ralph.tracker import PullRequest, PullRequestState
from ralph.web._markdown import diff_line_class

__all__ = ["MAX_DIFF_LINES", "FileDiff", "pull_request_diff"]

#: Lines of a diff a page shows; a larger one is cut there (the tracker has it whole).
MAX_DIFF_LINES = 2_000
_OID = re.compile(r"[0-9a-f]{7,64}")
_GIT_SECONDS = 10.0


@dataclass(frozen=True)
class FileDiff:
    path: str
    added: int
    removed: int
    #: (class, text) for each line from its first hunk on: diff-add, diff-del, ...
    lines: tuple[tuple[str, str], ...]


def _commit(git: GitRepo, *refs: str) -> str | None:
    """The first of ``refs`` that names a commit here."""
    for ref in refs:
        found = git.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        if found.returncode == 0:
            return found.stdout.strip()
    return None


def _branch(git: GitRepo, name: str) -> str | None:
    if not name or name.startswith("-") or ".." in name:
        return None
    return _commit(git, f"refs/heads/{name}", f"refs/remotes/origin/{name}")


def _ends(git: GitRepo, pr: PullRequest) -> tuple[str, str] | None:
    head = None
    if pr.head_oid and _OID.fullmatch(pr.head_oid):
        head = _commit(git, pr.head_oid)
    head = head or _branch(git, pr.head)
    if pr.state is PullRequestState.MERGED and pr.merge_commit and _OID.fullmatch(pr.merge_commit):
        # The base as it was before the merge: its merge base with the head is where
        # the branch left it, whether merged, squashed or rebased.
        base = _commit(git, f"{pr.merge_commit}^1")
    else:
        base = _branch(git, pr.base)
    return (base, head) if base and head else None


def pull_request_diff(git: GitRepo, pr: PullRequest) -> list[FileDiff] | None:
    """The files ``pr`` changes with their hunks, or None when this clone cannot say."""
    ends = _ends(git, pr)
    if ends is None:
        return None
    shown = git.run(
        "diff", "--no-color", "--no-ext-diff", f"{ends[0]}...{ends[1]}", timeout=_GIT_SECONDS
    )
    if shown.returncode != 0:
        return None
    return parse_diff(shown.stdout)


def parse_diff(text: str) -> list[FileDiff]:
    """A unified diff (``git diff``) split into its files, at most MAX_DIFF_LINES lines
    kept over all of them."""
    files: list[FileDiff] = []
    path, added, removed, lines = "", 0, 0, list[tuple[str, str]]()
    budget = MAX_DIFF_LINES

    def close() -> None:
        if path:
            files.append(FileDiff(path, added, removed, tuple(lines)))

    for line in text.splitlines():
        if line.startswith("diff --git "):
            close()
            path, added, removed, lines = line.split(" b/", 1)[-1], 0, 0, []
            continue
        if line.startswith("+++ ") and line != "+++ /dev/null":
            path = line[4:].removeprefix("b/")
        kind = diff_line_class(line)
        if kind == "diff-file":
            continue
        added += kind == "diff-add"
        removed += kind == "diff-del"
        if budget > 0:
            budget -= 1
            lines.append((kind, line))
    close()
    return files
