"""Document frontmatter: read the ``---`` block at the top of a research document, plan
or critique, set fields in it, and check the fields each kind needs (docs/compatibility.md
artifact_types)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ralph.artifacts._protocol import ArtifactKind

__all__ = [
    "REQUIRED_SECTIONS",
    "missing_sections",
    "parse_frontmatter",
    "set_frontmatter",
    "validate_document",
]

_PHASE = re.compile(r"^## Phase \d+", re.MULTILINE)


def _value(raw: str) -> Any:
    text = raw.strip()
    if text in ("", "null", "~"):
        return None
    if text.startswith("[") and text.endswith("]"):
        return [_value(part) for part in text[1:-1].split(",") if part.strip()]
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """The ``key: value`` pairs of a leading ``---`` block (scalars and ``[a, b]`` lists)
    and the body after it. No block: an empty dict and the whole text."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, text
    fields: dict[str, Any] = {}
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return fields, "".join(lines[index + 1 :])
        key, sep, raw = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t", "-")):
            fields[key.strip()] = _value(raw)
    return {}, text  # an unterminated block is not frontmatter


def _render(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_render(item) for item in value) + "]"
    return str(value)


def set_frontmatter(text: str, fields: Mapping[str, Any]) -> str:
    """``text`` with ``fields`` set in its leading ``---`` block (one is made when the text
    has none): each key's old value, if any, is dropped and the fields are written at the
    end of the block, as scalars or ``[a, b]`` lists the parser reads back."""
    lines = text.splitlines(keepends=True)
    end = None
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
    if end is None:
        lines, end = ["---\n", "---\n", *lines], 1
    block: list[str] = []
    replacing = False
    for line in lines[1:end]:
        key, sep, _ = line.partition(":")
        nested = line.startswith((" ", "\t", "-"))
        if replacing and nested:
            continue  # the old value's continuation lines (a YAML block list)
        replacing = bool(sep) and not nested and key.strip() in fields
        if not replacing:
            block.append(line)
    block += [f"{key}: {_render(value)}\n" for key, value in fields.items()]
    return "".join([lines[0], *block, *lines[end:]])


#: The section headings a document of a kind must have, each on a line of its own.
REQUIRED_SECTIONS: Mapping[ArtifactKind, tuple[str, ...]] = {
    ArtifactKind.RESEARCH: ("## Files Affected", "### Will Modify", "### Will Read (Dependencies)"),
}

_REQUIRED = {
    ArtifactKind.RESEARCH: ("github_issue", "status"),
    ArtifactKind.PLAN: ("status",),
    ArtifactKind.REVIEW: ("date", "github_issue", "status"),
}


def validate_document(kind: ArtifactKind, text: str) -> list[str]:
    """What is missing from a document of ``kind``; empty when it is valid."""
    fields, body = parse_frontmatter(text)
    if not fields:
        return ["no frontmatter (a leading --- block)"]
    problems = [
        f"frontmatter lacks {key!r}" for key in _REQUIRED.get(kind, ()) if key not in fields
    ]
    if kind is ArtifactKind.PLAN:
        if "github_issue" not in fields and "github_issues" not in fields:
            problems.append("frontmatter lacks 'github_issue' or 'github_issues'")
        if not _PHASE.search(body):
            problems.append("no '## Phase N' sections")
    return problems


def missing_sections(kind: ArtifactKind, text: str) -> list[str]:
    """The ``REQUIRED_SECTIONS`` of ``kind`` that ``text`` lacks, as problems."""
    lines = {line.strip() for line in text.splitlines()}
    return [
        f"no '{heading}' section"
        for heading in REQUIRED_SECTIONS.get(kind, ())
        if heading not in lines
    ]
