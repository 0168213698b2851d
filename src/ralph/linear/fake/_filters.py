"""The part of Linear's filter language the tracker's documents use: comparators on ids,
numbers and strings, a team by id or key, a parent (or none) by id or number, a state by
type or name, an estimate, labels by name (``some``/``every``), the description, the
times of the last update and of archiving, and/or. Anything else is
refused rather than ignored, so a document leaning on an unmodelled filter fails in the
tests instead of matching everything."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ralph.linear.fake._model import LinearFault

if TYPE_CHECKING:
    from ralph.linear.fake._model import Comment, Issue

__all__ = ["comments_matching", "compare", "issues_matching"]


def compare(value: Any, comparator: Mapping[str, Any]) -> bool:
    """One comparator (``{eq: ...}``, ``{in: [...]}``, ``{contains: ...}``...)."""
    tests: dict[str, Callable[[Any], bool]] = {
        "eq": lambda wanted: value == wanted,
        "neq": lambda wanted: value != wanted,
        "in": lambda wanted: value in wanted,
        "nin": lambda wanted: value not in wanted,
        "gt": lambda wanted: value is not None and value > wanted,
        "gte": lambda wanted: value is not None and value >= wanted,
        "lt": lambda wanted: value is not None and value < wanted,
        "lte": lambda wanted: value is not None and value <= wanted,
        "null": lambda wanted: (value is None) == wanted,
        "contains": lambda wanted: value is not None and wanted in value,
        "startsWith": lambda wanted: value is not None and value.startswith(wanted),
        "endsWith": lambda wanted: value is not None and value.endswith(wanted),
        "eqIgnoreCase": lambda wanted: value is not None and value.lower() == wanted.lower(),
        "containsIgnoreCase": lambda wanted: value is not None and wanted.lower() in value.lower(),
    }
    for name, wanted in comparator.items():
        if name not in tests:
            raise LinearFault(f"The fake does not model the comparator {name!r}")
        if not tests[name](wanted):
            return False
    return True


def _issue_matches(issue: Issue, wanted: Mapping[str, Any]) -> bool:
    for key, value in wanted.items():
        if key == "and":
            ok = all(_issue_matches(issue, part) for part in value)
        elif key == "or":
            ok = any(_issue_matches(issue, part) for part in value)
        elif key == "id":
            ok = compare(issue.id, value)
        elif key == "number":
            ok = compare(issue.number, value)
        elif key == "title":
            ok = compare(issue.title, value)
        elif key == "description":
            ok = compare(issue.description, value)
        elif key == "estimate":
            ok = compare(issue.estimate, value)
        elif key == "archivedAt":
            ok = _compare_instant(issue.archivedAt, value)
        elif key == "labels":
            ok = _labels_match([label.name for label in issue.label_list], value)
        elif key == "team":
            ok = all(
                compare(issue.team.id if k == "id" else issue.team.key, {**c})
                for k, c in value.items()
                if _known(k, ("id", "key"), "team")
            )
        elif key == "parent":
            ok = _parent_matches(issue.parent, value)
        elif key == "state":
            ok = all(
                compare(issue.state.type if k == "type" else issue.state.name, {**c})
                for k, c in value.items()
                if _known(k, ("type", "name"), "state")
            )
        elif key == "updatedAt":
            ok = _compare_instant(issue.updatedAt, value)
        else:
            raise LinearFault(f"The fake does not model the issue filter {key!r}")
        if not ok:
            return False
    return True


def _compare_instant(value: str | None, comparator: Mapping[str, Any]) -> bool:
    """A date comparator (``gte``...; ``null`` as is) on an ISO 8601 date-time."""
    return compare(
        None if value is None else _instant(value),
        {k: v if k == "null" else _instant(v) for k, v in comparator.items()},
    )


def _labels_match(names: list[str], wanted: Mapping[str, Any]) -> bool:
    """An ``IssueLabelCollectionFilter``: ``some`` / ``every`` label by name, or none."""
    for key, value in wanted.items():
        if key == "null":
            ok = (not names) == value
        elif _known(key, ("some", "every"), "labels"):
            tests = [
                all(_known(k, ("name",), "label") and compare(n, c) for k, c in value.items())
                for n in names
            ]
            ok = any(tests) if key == "some" else all(tests)
        if not ok:
            return False
    return True


def _instant(text: str) -> datetime:
    """An ISO 8601 date-time as Linear writes it (``...Z``), to compare by time."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _known(key: str, known: tuple[str, ...], where: str) -> bool:
    if key not in known:
        raise LinearFault(f"The fake does not model the {where} filter {key!r}")
    return True


def _parent_matches(parent: Issue | None, wanted: Mapping[str, Any]) -> bool:
    for key, value in wanted.items():
        if key == "null":
            if (parent is None) != value:
                return False
        elif _known(key, ("id", "number"), "parent") and (
            parent is None or not compare(parent.id if key == "id" else parent.number, value)
        ):
            return False
    return True


def issues_matching(issues: Iterable[Issue], args: Mapping[str, Any]) -> list[Issue]:
    """``issues`` as a connection of them answers: archived ones only when asked."""
    wanted = args.get("filter") or {}
    archived = bool(args.get("includeArchived"))
    return [
        issue
        for issue in issues
        if (archived or issue.archivedAt is None) and _issue_matches(issue, wanted)
    ]


def comments_matching(comments: Iterable[Comment], args: Mapping[str, Any]) -> list[Comment]:
    wanted = args.get("filter") or {}
    found = []
    for comment in comments:
        ok = True
        for key, value in wanted.items():
            if key == "body":
                ok = ok and compare(comment.body, value)
            elif key == "issue":
                ok = ok and _parent_matches(comment.issue, value)
            else:
                raise LinearFault(f"The fake does not model the comment filter {key!r}")
        if ok:
            found.append(comment)
    return found
