"""A Linear team's issues read by filter, at a price that follows what is asked.

Linear prices a request by what it may return: every field of every issue a page could
hold, a nested connection at its whole page for each (its rate-limiting documentation).
So the team's issues are read as rows (``IssueRows``: the fields, and one-node probes of
the connections) filtered on Linear's side as far as a query allows (``issue_filter``),
and each connection is read apart (``LINKS``, by ids) only for the rows whose probe of
it found some: a team's children and relations sit on a few of its issues. Each read
gives nodes shaped as ``IssueFields`` (what ``issue_from`` and ``completed`` take).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from ralph.linear import LinearClient
from ralph.linear import queries as q
from ralph.linear.queries import LinearDocument
from ralph.tracker._model import IssueQuery, IssueStatus
from ralph.tracker.linear._mapping import CLOSED_TYPES, estimate_points
from ralph.tracker.linear._team import LinearTeam
from ralph.tracker.linear._writes import completed

__all__ = [
    "Filter",
    "board_filter",
    "issue_filter",
    "read_rows",
    "some_of",
    "stamp",
    "team_filter",
]

Node = dict[str, Any]
Filter = dict[str, Any]

#: A read's first page when how many match is not known.
FIRST_PAGE = 50
_CONNECTIONS = ("children", "labels", "relations", "inverseRelations")
_CLOSED = sorted(CLOSED_TYPES)


def stamp(epoch: float) -> str:
    """Epoch seconds as Linear writes a date-time (ISO 8601, milliseconds, ``Z``)."""
    text = datetime.fromtimestamp(max(epoch, 0.0), UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def team_filter(team: LinearTeam) -> Filter:
    return {"team": {"id": {"eq": team.id}}}


def issue_filter(team: LinearTeam, query: IssueQuery) -> tuple[Filter, bool]:
    """The filter Linear applies for ``query`` and whether archived issues are asked
    for. It may let through more than the query wants (the caller applies the query to
    what comes back), never less: a label or a text Linear compares its own way is
    checked again here."""
    parts: list[Filter] = [team_filter(team)]
    if query.status is IssueStatus.OPEN:
        parts.append({"state": {"type": {"nin": _CLOSED}}})
    elif query.status is IssueStatus.CLOSED:
        parts.append({"state": {"type": {"in": _CLOSED}}})
    if query.states:
        parts.append({"state": {"name": {"in": sorted(s.value for s in query.states)}}})
    if query.estimates:
        parts.append({"estimate": {"in": sorted(estimate_points(e) for e in query.estimates)}})
    parts.extend(
        {"labels": {"some": {"name": {"eqIgnoreCase": label}}}} for label in sorted(query.labels)
    )
    if query.text:
        text = {"containsIgnoreCase": query.text}
        parts.append({"or": [{"title": text}, {"description": text}]})
    if query.parent is not None:
        parts.append({"parent": {"number": {"eq": query.parent}}})
    elif query.has_parent is not None:
        parts.append({"parent": {"null": not query.has_parent}})
    if query.updated_since is not None:
        parts.append({"updatedAt": {"gte": stamp(query.updated_since)}})
    if query.archived is True:
        parts.append({"archivedAt": {"null": False}})
    return _all_of(parts), query.archived is not False


def board_filter(team: LinearTeam, closed_since: float) -> Filter:
    """What a dashboard shows: the open issues, and the closed ones updated since
    ``closed_since`` (epoch seconds)."""
    return _all_of(
        [
            team_filter(team),
            {
                "or": [
                    {"state": {"type": {"nin": _CLOSED}}},
                    {"updatedAt": {"gte": stamp(closed_since)}},
                ]
            },
        ]
    )


def some_of(team: LinearTeam, *, numbers: Iterable[int] = (), ids: Iterable[str] = ()) -> Filter:
    """The team's issues of these numbers or ids."""
    either: list[Filter] = []
    if numbers:
        either.append({"number": {"in": sorted(numbers)}})
    if ids:
        either.append({"id": {"in": sorted(ids)}})
    return _all_of([team_filter(team), either[0] if len(either) == 1 else {"or": either}])


def _all_of(parts: Sequence[Filter]) -> Filter:
    """``parts`` as one filter: their keys side by side where none repeats (Linear ANDs
    a filter's keys), else under ``and``."""
    keys = [key for part in parts for key in part]
    if len(keys) == len(set(keys)):
        return {key: value for part in parts for key, value in part.items()}
    return {"and": list(parts)}


def read_rows(
    client: LinearClient,
    filter: Filter,
    *,
    archived: bool,
    expected: int | None = None,
    board: bool = False,
) -> list[Node]:
    """The issues matching ``filter`` (archived ones too with ``archived``), each shaped
    as ``IssueFields``: rows page after page, then each connection of those whose probe
    found some (``LINKS``). ``expected``: how many at most are known to match (a first
    page of that size: Linear prices a page by its size). ``board``: as a dashboard
    shows them (``BOARD_ROWS``: no labels, children or issues blocked)."""
    document = q.BOARD_ROWS if board else q.ISSUE_ROWS
    variables = {"filter": filter, "archived": archived}
    rows = list(_rows(client, document, variables, expected))
    links: dict[str, dict[str, Node]] = {}
    for name, linking in q.LINKS.items():
        wanted = [row["id"] for row in rows if _probed(row, name)]
        for start in range(0, len(wanted), linking.page_size):
            ids = wanted[start : start + linking.page_size]
            found = client.query(linking, {"ids": ids, "first": len(ids)})["issues"]["nodes"]
            links.setdefault(name, {}).update((node["id"], node[name]) for node in found)
    # Kept as read: a connection cut short is read whole once, not at every use.
    return [completed(client, _as_fields(row, links)) for row in rows]


def _rows(
    client: LinearClient,
    document: LinearDocument,
    variables: Mapping[str, Any],
    expected: int | None,
) -> Iterator[Node]:
    """The rows, a first page of ``expected`` (else ``FIRST_PAGE``: most reads of a
    small team end there, at a quarter of a full page's price), then full pages."""
    first = expected if expected is not None and expected > 0 else FIRST_PAGE
    found = client.query(document, {**variables, "first": min(first, document.page_size)})
    page = found["issues"]
    yield from page["nodes"]
    if page["pageInfo"]["hasNextPage"]:
        after = page["pageInfo"]["endCursor"]
        yield from client.pages(document, variables, ["issues"], after=after)


def _probed(row: Mapping[str, Any], name: str) -> bool:
    """Whether the row's probe of connection ``name`` found some (labels: a full page)."""
    if name not in row:
        return False
    nodes = (row.get(name) or {}).get("nodes") or ()
    return len(nodes) >= q.ROW_LABELS if name == "labels" else bool(nodes)


def _as_fields(row: Mapping[str, Any], links: Mapping[str, Mapping[str, Node]]) -> Node:
    node = {key: value for key, value in row.items() if key not in _CONNECTIONS}
    for name in _CONNECTIONS:
        found = links.get(name, {}).get(row["id"])
        if found is not None:  # a full page may hold less than all of them
            nodes = list(found["nodes"])
            more = len(nodes) >= q.LINKS_PAGE
        else:  # the probe found none (labels: fewer than a row's page, all of them)
            nodes = list(row["labels"]["nodes"]) if name == "labels" and "labels" in row else []
            more = False
        node[name] = {"pageInfo": {"hasNextPage": more}, "nodes": nodes}
    return node
