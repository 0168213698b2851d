"""The lines of a branch's diff a review comment is attached to (GitHub's ``diffHunk``)."""

from __future__ import annotations

import re

from ralph.git._repo import GitRepo

__all__ = ["diff_hunk", "hunk_containing"]

#: ``@@ -a,b +c,d @@``: the hunk's lines on the new side are c .. c+d-1 (d is 1 when
#: left out, and 0 for a hunk that only deletes).
_HEADER = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def hunk_containing(diff: str, line: int) -> str:
    """The hunk of the unified ``diff`` whose new side holds ``line``, from its ``@@``
    header on; empty when no hunk does (a comment on an unchanged line)."""
    hunk: list[str] = []
    found = False
    for text in diff.splitlines():
        header = _HEADER.match(text)
        if header is not None:
            if found:
                break
            start, count = int(header[1]), int(header[2] or 1)
            found = start <= line < start + count
            hunk = [text]
        elif hunk:
            hunk.append(text)
    return "\n".join(hunk) if found else ""


def diff_hunk(repo: GitRepo, base: str, head: str, path: str, line: int) -> str:
    """The hunk of ``git diff base...head -- path`` that holds ``line`` of the new file."""
    diff = repo.git(
        "diff",
        "--no-color",
        "--no-ext-diff",
        f"{base}...{head}",
        "--",
        path,
        what=f"read the diff of {path}",
    )
    return hunk_containing(diff, line)
