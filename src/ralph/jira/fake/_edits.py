"""An issue's fields checked and set as Jira does: every field checked first, then all
set or none, within Jira's limits (255-character summaries without line breaks,
32,767 characters of ADF text, labels without spaces, a parent in the same project and
not a descendant)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ralph.jira.fake._model import (
    ESTIMATE_FIELDS,
    PRIORITIES,
    T_SHIRT_OPTIONS,
    Issue,
    Site,
)

__all__ = ["MAX_SUMMARY", "MAX_TEXT", "Refused", "adf_problem", "apply_fields"]

#: Jira's limits on text: summaries, and ADF documents (descriptions, comments).
MAX_SUMMARY = 255
MAX_TEXT = 32_767


class Refused(Exception):
    def __init__(
        self,
        status: int,
        messages: list[str] | None = None,
        errors: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(status, messages, errors)
        self.status = status
        self.messages = messages or []
        self.errors = dict(errors or {})

    def body(self) -> dict[str, Any]:
        return {"errorMessages": self.messages, "errors": self.errors}


def apply_fields(
    site: Site, issue: Issue, fields: Mapping[str, Any], *, creating: bool = False
) -> None:
    """Set ``fields`` on ``issue``: checked first, all or nothing."""
    errors: dict[str, str] = {}
    changes: dict[str, Any] = {}
    for name, value in fields.items():
        if name == "summary":
            text = str(value or "")
            if not text.strip():
                errors[name] = "You must specify a summary of the issue."
            elif len(text) > MAX_SUMMARY:
                errors[name] = "Summary must be less than 255 characters."
            elif "\n" in text or "\r" in text:
                errors[name] = "The summary is invalid because it contains newline characters."
            else:
                changes[name] = text
        elif name == "description":
            problem = adf_problem(value)
            if problem:
                errors[name] = problem
            else:
                changes[name] = value
        elif name == "labels":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                errors[name] = "The labels must be a list of strings."
            elif any(" " in v or not v for v in value):
                bad = next(v for v in value if " " in v or not v)
                errors[name] = f"The label '{bad}' contains spaces which is invalid."
            else:
                changes[name] = list(dict.fromkeys(value))
        elif name == "priority":
            wanted = (value or {}).get("name") or (value or {}).get("id")
            names = {str(n): p for n, p in enumerate(PRIORITIES, 1)} | {p: p for p in PRIORITIES}
            if wanted not in names:
                errors[name] = f"Specify a valid priority; {wanted!r} is not one."
            else:
                changes[name] = names[wanted]
        elif name == "parent":
            ref = value or {}
            parent = site.issue(str(ref.get("key") or ref.get("id") or "")) if value else None
            if value and parent is None:
                errors[name] = "Could not find issue by id or key."
            elif parent is not None and parent.project is not issue.project:
                errors[name] = "The parent must be in the same project."
            elif parent is not None and (parent.id == issue.id or _descends(site, parent, issue)):
                errors[name] = "An issue cannot be its own ancestor."
            elif parent is None and issue.issue_type.subtask:
                errors[name] = "A sub-task must have a parent."
            elif parent is not None and (
                parent.issue_type.hierarchy_level != issue.issue_type.hierarchy_level + 1
            ):
                # Jira's hierarchy: an epic holds standard issues, which hold sub-tasks.
                errors[name] = (
                    f"The parent of a {issue.issue_type.name} must be one level above it; "
                    f"{parent.key} is a {parent.issue_type.name}."
                )
            else:
                changes[name] = None if parent is None else parent.id
        elif name in ESTIMATE_FIELDS:
            kind = ESTIMATE_FIELDS[name][1]
            if value is None:
                changes[name] = None
            elif (
                kind == "number" and isinstance(value, int | float) and not isinstance(value, bool)
            ):
                changes[name] = value
            elif (
                kind == "option"
                and isinstance(value, dict)
                and (
                    value.get("value") in T_SHIRT_OPTIONS
                    or value.get("id") in T_SHIRT_OPTIONS.values()
                )
            ):
                option = value.get("value") or next(
                    k for k, v in T_SHIRT_OPTIONS.items() if v == value.get("id")
                )
                changes[name] = option
            else:
                wanted_kind = "number" if kind == "number" else "valid option"
                errors[name] = f"Operation value must be a {wanted_kind}"
        else:
            errors[name] = (
                f"Field '{name}' cannot be set. It is not on the appropriate screen, or unknown."
            )
    if errors:
        raise Refused(400, [], errors)
    for name, value in changes.items():
        if name in ESTIMATE_FIELDS:
            issue.custom[name] = value
        else:
            setattr(issue, name, value)
    if not creating:
        issue.updated = site.clock()


def _descends(site: Site, issue: Issue, ancestor: Issue) -> bool:
    seen = 0
    current: Issue | None = issue
    while current is not None and current.parent is not None and seen < 100:
        if current.parent == ancestor.id:
            return True
        current = site.issues.get(current.parent)
        seen += 1
    return False


def adf_problem(document: Any) -> str:
    """Why Jira would refuse ``document`` as an ADF text, or ""."""
    if document is None:
        return ""
    if (
        not isinstance(document, dict)
        or document.get("type") != "doc"
        or document.get("version") != 1
    ):
        return "Operation value must be an Atlassian Document (see the Atlassian Document Format)"
    size = 0
    stack = list(document.get("content") or [])
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or not isinstance(node.get("type"), str):
            return "INVALID_INPUT: a node of the document has no type"
        if node["type"] == "text":
            text = node.get("text")
            if not isinstance(text, str) or not text:
                return "INVALID_INPUT: a text node must have non-empty text"
            size += len(text)
        stack.extend(node.get("content") or [])
    if size > MAX_TEXT:
        return (
            "The entered text is too long. "
            f"It exceeds the allowed limit of {MAX_TEXT:,} characters."
        )
    return ""
