"""The items an issue written in plain words lists, for a split without a ``## Split``
section: its task list (``- [ ] ...``), else its acceptance criteria, else its first
bullet or numbered list; top-level items only, in the order written, fenced code left
out (a ```diff block's ``-`` lines are no items)."""

from __future__ import annotations

import re

__all__ = ["listed_changes", "outline"]

_FENCE = re.compile(r"^\s*(```|~~~).*?^\s*\1[^\n]*$", re.MULTILINE | re.DOTALL)
_TASK = re.compile(r"^(\s*)[-*+]\s+\[[ xX]\]\s+(\S.*?)\s*$")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(\S.*?)\s*$")
_HEADING = re.compile(r"^\s*(#{1,6})\s+(.*?)\s*#*\s*$")
_CRITERIA = re.compile(r"acceptance\s+criteria", re.IGNORECASE)


def _items(lines: list[str], pattern: re.Pattern[str], *, first_list: bool) -> list[str]:
    """The items ``pattern`` matches at the shallowest indent among them; with
    ``first_list``, of the first list only (a line that is neither an item, indented
    nor blank ends it)."""
    found: list[tuple[int, str]] = []
    for line in lines:
        match = pattern.match(line)
        if match:
            found.append((len(match.group(1).expandtabs()), match.group(2)))
        elif first_list and found and line.strip() and not line[:1].isspace():
            break
    if not found:
        return []
    shallowest = min(indent for indent, _ in found)
    return [text for indent, text in found if indent == shallowest]


def _criteria_lines(lines: list[str]) -> list[str]:
    """The lines of the first section headed "Acceptance Criteria", up to the next
    heading of its level or above."""
    for start, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading and _CRITERIA.search(heading.group(2)):
            level = len(heading.group(1))
            section = []
            for following in lines[start + 1 :]:
                next_heading = _HEADING.match(following)
                if next_heading and len(next_heading.group(1)) <= level:
                    break
                section.append(following)
            return section
    return []


def outline(body: str) -> list[str]:
    """The items to split ``body`` on, as written; empty when it lists none."""
    lines = _FENCE.sub("", body).splitlines()
    return (
        _items(lines, _TASK, first_list=False)
        or _items(_criteria_lines(lines), _BULLET, first_list=True)
        or _items(lines, _BULLET, first_list=True)
    )


def listed_changes(body: str) -> list[str]:
    """The changes ``body`` lists, for sizing it: its task list, else its first bullet
    list; never its acceptance criteria (checks of one change, not several changes)."""
    lines = _FENCE.sub("", body).splitlines()
    if _criteria_lines(lines):
        return _items(lines, _TASK, first_list=False)
    return _items(lines, _TASK, first_list=False) or _items(lines, _BULLET, first_list=True)
