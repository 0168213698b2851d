"""An issue of the fake Jira as Jira's REST API returns it: the fields asked for
(``fields``: names, ``*all``, ``*navigable``, ``-name``), its links, parent and
sub-tasks as brief issues, and the issue properties named."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ralph.jira.fake._model import (
    ESTIMATE_FIELDS,
    PRIORITIES,
    RESOLUTIONS,
    T_SHIRT_OPTIONS,
    Issue,
    Site,
    stamp,
)

__all__ = ["ALL_FIELDS", "API", "BLOCKS", "field_meta", "issue_json", "wanted"]

API = "/rest/api/3"
BLOCKS = {"id": "10000", "name": "Blocks", "inward": "is blocked by", "outward": "blocks"}
#: The fields a GET of an issue returns by default (``*all``) and a search by ``*navigable``.
ALL_FIELDS = (
    "summary",
    "description",
    "status",
    "priority",
    "labels",
    "parent",
    "subtasks",
    "issuelinks",
    "created",
    "updated",
    "resolution",
    "resolutiondate",
    "assignee",
    "reporter",
    "issuetype",
    "project",
    "comment",
    *ESTIMATE_FIELDS,
)


def issue_json(
    site: Site, issue: Issue, chosen: set[str], properties: Sequence[str] = ()
) -> dict[str, Any]:
    """``issue`` with the ``chosen`` fields and the issue ``properties`` named."""
    values: dict[str, Any] = {}
    for name in chosen:
        if name in ("id", "key"):
            continue
        value = _field(site, issue, name)
        if value is not _ABSENT:
            values[name] = value
    body: dict[str, Any] = {
        "id": issue.id,
        "key": issue.key,
        "self": f"{site.url}{API}/issue/{issue.id}",
        "fields": values,
    }
    if properties:
        body["properties"] = {p: issue.properties[p] for p in properties if p in issue.properties}
    return body


def _brief(issue: Issue) -> dict[str, Any]:
    return {
        "id": issue.id,
        "key": issue.key,
        "fields": {
            "summary": issue.summary,
            "status": issue.status.json(),
            "priority": None if issue.priority is None else {"name": issue.priority},
            "issuetype": issue.issue_type.json(),
        },
    }


def _field(site: Site, issue: Issue, name: str) -> Any:
    if name == "summary":
        return issue.summary
    if name == "description":
        return issue.description
    if name == "status":
        return issue.status.json()
    if name == "priority":
        if issue.priority is None:
            return None
        return {"id": str(PRIORITIES.index(issue.priority) + 1), "name": issue.priority}
    if name == "labels":
        return list(issue.labels)
    if name == "parent":
        parent = site.issues.get(issue.parent or "")
        return _ABSENT if parent is None else _brief(parent)
    if name == "subtasks":
        return [_brief(c) for c in site.children(issue) if c.issue_type.subtask]
    if name == "issuelinks":
        links = []
        for link in site.links.values():
            if link.outward == issue.id and link.inward in site.issues:
                links.append(
                    {
                        "id": link.id,
                        "type": BLOCKS,
                        "outwardIssue": _brief(site.issues[link.inward]),
                    }
                )
            elif link.inward == issue.id and link.outward in site.issues:
                links.append(
                    {
                        "id": link.id,
                        "type": BLOCKS,
                        "inwardIssue": _brief(site.issues[link.outward]),
                    }
                )
        return links
    if name == "created":
        return stamp(issue.created)
    if name == "updated":
        return stamp(issue.updated)
    if name == "resolution":
        return None if issue.resolution is None else {"name": issue.resolution}
    if name == "resolutiondate":
        return None if issue.resolved is None else stamp(issue.resolved)
    if name == "assignee":
        return None
    if name == "reporter":
        return issue.reporter.json()
    if name == "issuetype":
        return issue.issue_type.json()
    if name == "project":
        return {"id": issue.project.id, "key": issue.project.key, "name": issue.project.name}
    if name == "comment":
        return {
            "comments": [c.json() for c in issue.comments],
            "maxResults": len(issue.comments),
            "total": len(issue.comments),
            "startAt": 0,
        }
    if name in ESTIMATE_FIELDS:
        value = issue.custom.get(name)
        if ESTIMATE_FIELDS[name][1] == "option" and value is not None:
            return {"value": value, "id": T_SHIRT_OPTIONS[value]}
        return value
    return _ABSENT


_ABSENT = object()


def wanted(query: Any, default: str) -> set[str]:
    """The fields a ``fields`` parameter names (``*all``, ``*navigable``, ``-name``)."""
    names = [part.strip() for key, value in query if key == "fields" for part in value.split(",")]
    names = [n for n in names if n] or [default]
    chosen: set[str] = set()
    for name in names:
        if name in ("*all", "*navigable"):
            chosen |= set(ALL_FIELDS) - ({"comment"} if name == "*navigable" else set())
        elif not name.startswith("-"):
            chosen.add(name)
    chosen -= {n[1:] for n in names if n.startswith("-")}
    return chosen


def field_meta(name: str) -> dict[str, Any]:
    """A field of a transition's screen, as ``expand=transitions.fields`` lists it."""
    meta: dict[str, Any] = {
        "key": name,
        "name": name.title(),
        "required": name == "resolution",
        "operations": ["set"],
        "schema": {"type": name, "system": name},
    }
    if name == "resolution":
        meta["allowedValues"] = [{"name": r} for r in RESOLUTIONS]
    return meta
