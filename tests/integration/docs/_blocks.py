"""The fenced blocks of a Markdown page, and what the page says about each: run it as a
shell script, write it to a file, compare it with the output of the block before it, or
leave it alone for a stated reason. The page says so in an HTML comment on the line
right before the block's fence, which readers of the rendered page never see:

- ``<!-- not run: REASON -->`` before a shell block: skipped, and the reason is required;
- ``<!-- file: PATH -->`` before any block: its text is written to PATH;
- ``<!-- output -->`` before any block: each of its lines, in order, is part of a line
  the shell block before it printed.

Any other fenced block in a shell language (sh, bash, shell) is run."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SHELLS", "Block", "MarkerError", "blocks"]

SHELLS = frozenset({"sh", "bash", "shell"})

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
_MARKER = re.compile(r"^<!--\s*(?P<kind>not run|file|output)\s*(?::\s*(?P<arg>.*?))?\s*-->$")


class MarkerError(ValueError):
    """A marker the page cannot mean: a skip without a reason, a file without a path."""


@dataclass(frozen=True, kw_only=True)
class Block:
    """One fenced block: its language, its text, the line its fence opens on, and the
    marker before it (``kind`` is ``run``, ``text``, ``not run``, ``file`` or
    ``output``; ``argument`` the reason or the path)."""

    language: str
    text: str
    line: int
    kind: str
    argument: str = ""


def _marker(previous: str, line: int) -> tuple[str, str] | None:
    found = _MARKER.match(previous.strip())
    if found is None:
        return None
    kind, argument = found["kind"], (found["arg"] or "").strip()
    if kind in ("not run", "file") and not argument:
        what = "a reason" if kind == "not run" else "a path"
        raise MarkerError(f"line {line}: <!-- {kind}: ... --> needs {what}")
    if kind == "output" and argument:
        raise MarkerError(f"line {line}: <!-- output --> takes nothing after it")
    return kind, argument


def blocks(markdown: str) -> list[Block]:
    """Every fenced block of ``markdown``, in order, with what its marker says."""
    lines = markdown.splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence = opening["fence"]
        language = opening["info"].strip().split(" ")[0].lower()
        start = index
        body: list[str] = []
        index += 1
        while index < len(lines):
            closing = lines[index].strip()
            if closing.startswith(fence) and set(closing) == {fence[0]}:
                break
            body.append(lines[index][len(opening["indent"]) :])
            index += 1
        index += 1
        marker = _marker(lines[start - 1], start + 1) if start > 0 else None
        if marker is not None:
            kind, argument = marker
        else:
            kind, argument = ("run" if language in SHELLS else "text"), ""
        if kind == "not run" and language not in SHELLS:
            raise MarkerError(f"line {start + 1}: <!-- not run --> before a {language!r} block")
        text = "\n".join(body) + "\n"
        found.append(
            Block(language=language, text=text, line=start + 1, kind=kind, argument=argument)
        )
    return found
