"""The subset of JQL the fake Jira understands, parsed as Jira parses it and refused
(Jira's 400, "Error in the JQL Query") where it goes beyond: clauses joined by AND,
each ``field op value`` with ``=``, ``!=``, ``>``, ``>=``, ``<``, ``<=``, ``in``,
``not in``, ``is [not] EMPTY``, on the fields Ralph asks about, and an ``ORDER BY``.
A key that names no issue is an error, as on Jira."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from ralph.jira.fake._model import Issue, Site

__all__ = ["JqlError", "JqlQuery", "parse_jql"]

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
      | (?P<op>!=|>=|<=|=|>|<|~|!~)
      | (?P<punct>[(),])
      | (?P<word>[A-Za-z0-9_.\-/:\[\]]+)
    )""",
    re.VERBOSE,
)
_FIELDS = {
    "project",
    "key",
    "issuekey",
    "id",
    "status",
    "statuscategory",
    "labels",
    "parent",
    "updated",
    "created",
    "reporter",
    "resolution",
    "issuetype",
    "type",
    "priority",
}
_DATES = {"updated", "created"}
_ORDERABLE = {"key", "issuekey", "id", "created", "updated", "priority", "status"}


class JqlError(ValueError):
    """What Jira says of a query it refuses."""


@dataclass(frozen=True)
class Clause:
    field: str
    op: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class JqlQuery:
    clauses: tuple[Clause, ...]
    order: tuple[tuple[str, bool], ...]

    def run(self, site: Site, me: str) -> list[Issue]:
        """The issues this query finds, in its order (``me``: currentUser()'s account)."""
        for clause in self.clauses:
            if clause.field in ("key", "issuekey") and clause.op in ("=", "in"):
                for value in clause.values:
                    if site.issue(value) is None:
                        raise JqlError(
                            f"An issue with key '{value}' does not exist "
                            f"for field '{clause.field}'."
                        )
            if clause.field == "project":
                for value in clause.values:
                    if site.project(value) is None:
                        raise JqlError(
                            f"The value '{value}' does not exist for the field 'project'."
                        )
        found = [
            i for i in site.issues.values() if all(_holds(c, i, site, me) for c in self.clauses)
        ]
        for name, ascending in reversed(self.order or (("created", False),)):
            found.sort(key=_sort_key(name), reverse=not ascending)
        return found


def parse_jql(text: str) -> JqlQuery:
    tokens = _tokens(text)
    position = 0

    def peek(offset: int = 0) -> str | None:
        index = position + offset
        return tokens[index][1] if index < len(tokens) else None

    def take() -> tuple[str, str]:
        nonlocal position
        if position >= len(tokens):
            raise JqlError("Error in the JQL Query: the query ended unexpectedly.")
        position += 1
        return tokens[position - 1]

    clauses: list[Clause] = []
    order: list[tuple[str, bool]] = []
    while position < len(tokens):
        word = (peek() or "").lower()
        if word == "order" and (peek(1) or "").lower() == "by":
            position += 2
            while True:
                name = take()[1].lower()
                if name not in _ORDERABLE:
                    raise JqlError(f"Not able to sort using field '{name}'.")
                ascending = True
                if (peek() or "").lower() in ("asc", "desc"):
                    ascending = take()[1].lower() == "asc"
                order.append((name, ascending))
                if peek() != ",":
                    break
                position += 1
            if position < len(tokens):
                raise JqlError(
                    f"Error in the JQL Query: Expecting end of query but got '{peek()}'."
                )
            break
        if clauses:
            joiner = take()[1]
            if joiner.lower() != "and":
                raise JqlError(
                    f"Error in the JQL Query: the fake Jira takes AND between clauses, not "
                    f"'{joiner}'."
                )
        kind, name = take()
        field = name.lower()
        if kind != "word" or field not in _FIELDS:
            raise JqlError(
                f"Field '{name}' does not exist or you do not have permission to view it."
            )
        op = take()[1].lower()
        if op == "not" and (peek() or "").lower() == "in":
            position += 1
            op = "not in"
        if op == "is":
            negated = (peek() or "").lower() == "not"
            if negated:
                position += 1
            if take()[1].lower() not in ("empty", "null"):
                raise JqlError("Error in the JQL Query: expecting EMPTY after IS.")
            clauses.append(Clause(field, "is not empty" if negated else "is empty", ()))
            continue
        if op in ("in", "not in"):
            if take()[1] != "(":
                raise JqlError(f"Error in the JQL Query: expecting '(' after {op.upper()}.")
            values = []
            while True:
                values.append(_value(take()))
                separator = take()[1]
                if separator == ")":
                    break
                if separator != ",":
                    raise JqlError(
                        f"Error in the JQL Query: expecting ',' or ')' not '{separator}'."
                    )
            clauses.append(Clause(field, op, tuple(values)))
            continue
        if op not in ("=", "!=", ">", ">=", "<", "<="):
            raise JqlError(f"The operator '{op}' is not supported by the fake Jira.")
        if op in (">", ">=", "<", "<=") and field not in _DATES:
            raise JqlError(f"The operator '{op}' is not supported by the '{field}' field.")
        value_token = take()
        value = _value(value_token)
        if value_token[0] == "word" and peek() == "(":  # a function: currentUser()
            position += 1
            if take()[1] != ")":
                raise JqlError(f"Error in the JQL Query: function {value}() takes no arguments.")
            if value.lower() != "currentuser":
                raise JqlError(f"Unable to find JQL function '{value}()'.")
            value = "currentUser()"
        if field in _DATES:
            _date(value, 0.0, UTC)  # refused when parsed, as Jira does, not when an issue is met
        clauses.append(Clause(field, op, (value,)))
    return JqlQuery(tuple(clauses), tuple(order))


def _tokens(text: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    position = 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise JqlError(
                f"Error in the JQL Query: The character '{text[position:].strip()[:1]}' is "
                f"a reserved JQL character (at character {position + 1})."
            )
        kind = match.lastgroup or "word"
        found.append((kind, match.group(kind)))
        position = match.end()
    return found


def _value(token: tuple[str, str]) -> str:
    kind, text = token
    if kind == "string":
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    if kind != "word":
        raise JqlError(f"Error in the JQL Query: expecting a value, not '{text}'.")
    return text


#: A date relative to now, as JQL writes it: ``-5m``, ``-2h``, ``-1d``, ``-1w``.
_RELATIVE = re.compile(r"^([-+]?)(\d+)([wdhm])$")
_UNIT = {"m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}


def _date(value: str, now: float, zone: tzinfo) -> float:
    """A JQL date: relative to ``now``, or absolute in the user's time ``zone``."""
    relative = _RELATIVE.match(value.strip())
    if relative is not None:
        sign, amount, unit = relative.groups()
        offset = int(amount) * _UNIT[unit]
        return now - offset if sign == "-" else now + offset
    for pattern in ("%Y-%m-%d %H:%M", "%Y/%m/%d %H:%M", "%Y-%m-%d", "%Y/%m/%d"):
        try:
            return datetime.strptime(value, pattern).replace(tzinfo=zone).timestamp()
        except ValueError:
            continue
    raise JqlError(
        f"Date value '{value}' for field 'updated' is invalid. Valid formats include: "
        "'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd' or a "
        "period format e.g. '-5d', '4w 2d'."
    )


def _values_of(field: str, issue: Issue, site: Site, me: str) -> list[str]:
    if field == "project":
        return [issue.project.key.lower(), issue.project.id, issue.project.name.lower()]
    if field in ("key", "issuekey", "id"):
        return [issue.key.lower(), issue.id]
    if field == "status":
        return [issue.status.name.lower(), issue.status.id]
    if field == "statuscategory":
        names = {"new": "to do", "indeterminate": "in progress", "done": "done"}
        return [issue.status.category, names[issue.status.category]]
    if field == "labels":
        return [label.lower() for label in issue.labels]
    if field == "parent":
        parent = site.issues.get(issue.parent or "")
        return [] if parent is None else [parent.key.lower(), parent.id]
    if field == "reporter":
        return [
            issue.reporter.account_id.lower(),
            "currentuser()" if issue.reporter.account_id == me else "",
        ]
    if field == "resolution":
        return [] if issue.resolution is None else [issue.resolution.lower()]
    if field in ("issuetype", "type"):
        return [issue.issue_type.name.lower(), issue.issue_type.id]
    if field == "priority":
        return [] if issue.priority is None else [issue.priority.lower()]
    return []


def _holds(clause: Clause, issue: Issue, site: Site, me: str) -> bool:
    if clause.field in _DATES:
        moment = issue.updated if clause.field == "updated" else issue.created
        account = next((a for a in site.accounts if a.account_id == me), None)
        zone = ZoneInfo(account.time_zone) if account is not None else UTC
        limit = _date(clause.values[0], site.clock(), zone)
        return {
            "=": moment == limit,
            "!=": moment != limit,
            ">": moment > limit,
            ">=": moment >= limit,
            "<": moment < limit,
            "<=": moment <= limit,
        }.get(clause.op, False)
    have = set(_values_of(clause.field, issue, site, me)) - {""}
    wanted = {v.lower() for v in clause.values}
    if clause.op == "is empty":
        return not have
    if clause.op == "is not empty":
        return bool(have)
    if clause.op in ("=", "in"):
        return bool(have & wanted)
    return not have & wanted  # != and not in


def _sort_key(name: str) -> Callable[[Issue], Any]:
    if name in ("key", "issuekey", "id"):
        return lambda i: (i.project.key, i.number)
    if name == "updated":
        return lambda i: i.updated
    if name == "status":
        return lambda i: i.status.name
    if name == "priority":
        return lambda i: i.priority or ""
    return lambda i: (i.created, i.number)


def keys_of(values: Sequence[str]) -> list[str]:
    return [v.upper() for v in values]
