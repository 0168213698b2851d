"""The team's issues as this process last read them, kept up to date by asking Linear
only what changed.

``ralph serve`` and the web board read the board on every poll. At a team's real size
(thousands of issues, most closed long ago) a read of every issue costs more than
Linear's hourly budget, so:

- **the board** (a query for every issue with ``board``: what the service's loop, its
  reconciliation and the web feed ask) is the open issues, the closed ones updated in
  the last ``BOARD_CLOSED_DAYS`` days, and every issue those name as parent, sub-issue
  or blocker, transitively (what the loop's groups are made of): Linear's own boards hide
  older closed issues too. Any other query (every issue, a state, a label...) is asked
  of Linear as such (``_reads.issue_filter``) and gets every issue it matches.
- **each read is kept** (by its filter), and a later one first asks which issues of the
  team were updated since the last look began, less ``OVERLAP`` (``TeamChanges``, 14
  points): the mark moves only when a look has read all that changed, never by what a
  read returns (an issue on a read's first page edited before its last page is read
  keeps its old ``updatedAt`` there). Those already kept as Linear reports them are
  left; the others are read by id and put into every kept read (the caller applies its
  query to what it gets, so an issue that no longer matches a kept filter is harmless).

What this process writes is read again by number at the next read (``touched``), whether
or not Linear moved the issue's ``updatedAt`` (a relation, a sub-issue). A change of
another client's that leaves every ``updatedAt`` as it was shows at the issue's next
update.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from typing import Any

from ralph.linear import LinearClient
from ralph.linear import queries as q
from ralph.tracker._model import IssueQuery, IssueStatus
from ralph.tracker.linear import _reads as r
from ralph.tracker.linear._mapping import CLOSED_TYPES, number_of
from ralph.tracker.linear._team import LinearTeam

__all__ = ["BOARD_CLOSED_DAYS", "OVERLAP", "TeamReads"]

#: How long a closed issue stays on the board unless an issue on it names it.
BOARD_CLOSED_DAYS = 30
#: Rounds of reading the issues the board names (each round: those the last one named).
_CLOSURE_ROUNDS = 8

#: How far back each look reaches before the last one began (seconds): a clock apart
#: from Linear's, an update stamped before it was committed.
OVERLAP = 300.0
#: Reads of other filters kept at most (the oldest goes first).
_KEPT_READS = 8

Node = dict[str, Any]
_BOARD = "board"
_DASHBOARD = "dashboard"


class TeamReads:
    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        # One read (and its refresh) at a time: the poll, the web feed and each
        # session's reconciliation would otherwise each ask Linear the same.
        self._lock = threading.RLock()
        #: Kept reads by (filter, or ``board``; archived too), each its issues by id.
        self._kept: dict[tuple[str, bool], dict[str, Node]] = {}
        #: Since when each kept board holds every closed issue (a date-time).
        self._since: dict[tuple[str, bool], str] = {}
        #: The ``updatedAt`` of every issue kept, by id (as every kept read holds it).
        self._seen: dict[str, str] = {}
        #: When the last look that read all that changed began (epoch seconds).
        self._mark = 0.0
        #: Issues this process wrote since the last look that read them, by number.
        self._touched: set[int] = set()
        #: Issues the board's issues name that Linear does not have, by number.
        self._absent: set[int] = set()

    def touched(self, numbers: Iterable[int | None]) -> None:
        """Issues this process changed: read again at the next read."""
        with self._lock:
            self._touched.update(n for n in numbers if n is not None)

    def issues(self, client: LinearClient, team: LinearTeam, query: IssueQuery) -> list[Node]:
        """Issues including every one ``query`` wants (the board's when it asks for
        every issue), maybe more: kept reads brought up to date, else a new read, kept."""
        wanted, archived = r.issue_filter(team, query)
        with self._lock:
            self._refresh(client, team)
            if query.board and wanted == r.team_filter(team):
                return self._board(client, team, archived)
            for covering in (True, False):  # a board holds every open issue
                board = self._kept.get((_BOARD, covering))
                if query.status is IssueStatus.OPEN and covering >= archived and board:
                    return list(board.values())
            key = (json.dumps(wanted, sort_keys=True), archived)
            if key not in self._kept:
                self._keep(key, r.read_rows(client, wanted, archived=archived))
            return list(self._kept[key].values())

    def board(self, client: LinearClient, team: LinearTeam, closed_since: float) -> list[Node]:
        """The dashboard's issues: the open ones and those closed and updated since
        ``closed_since``, archived ones too (``BOARD_ROWS``, kept: ``ralph web`` shows
        the dashboard on every page)."""
        since = r.stamp(closed_since)
        with self._lock:
            self._refresh(client, team)
            for key in ((_BOARD, True), (_DASHBOARD, True)):
                kept = self._kept.get(key)
                if kept is not None and self._since[key] <= since:
                    return [n for n in kept.values() if not _closed(n) or n["updatedAt"] >= since]
            wanted = r.board_filter(team, closed_since)
            nodes = r.read_rows(client, wanted, archived=True, board=True)
            self._keep((_DASHBOARD, True), nodes, whole=False)
            self._since[_DASHBOARD, True] = since
            return nodes

    def _board(self, client: LinearClient, team: LinearTeam, archived: bool) -> list[Node]:
        key = (_BOARD, archived)
        if key not in self._kept:
            since = self._clock() - BOARD_CLOSED_DAYS * 86400
            nodes = r.read_rows(client, r.board_filter(team, since), archived=archived)
            self._keep(key, nodes)
            self._since[key] = r.stamp(since)
            self._close_over(client, team)
        return list(self._kept[key].values())

    def _close_over(self, client: LinearClient, team: LinearTeam) -> None:
        """Each kept board with every issue its issues name (parent, sub-issues,
        blockers), read by number, round after round."""
        for archived in (False, True):
            kept = self._kept.get((_BOARD, archived))
            for _ in range(_CLOSURE_ROUNDS if kept is not None else 0):
                assert kept is not None
                have = {number_of(n["identifier"]) for n in kept.values()}
                named = {m for n in kept.values() for m in _named(n, team.key)}
                missing = named - have - self._absent
                if not missing:
                    break
                wanted = r.some_of(team, numbers=missing)
                nodes = r.read_rows(client, wanted, archived=True, expected=len(missing))
                self._saw(nodes)
                kept.update((n["id"], n) for n in nodes)
                # Named but not there (deleted): not asked for again.
                self._absent |= missing - {number_of(n["identifier"]) for n in nodes}

    def _refresh(self, client: LinearClient, team: LinearTeam) -> None:
        """Every kept read brought up to date: what this process wrote, and what Linear
        says was updated since the last look began (less ``OVERLAP``); each read at the
        size of what changed (a page is priced whole, however few it holds). The mark
        and what was written move only once all of it was read: a look that fails
        (rate limited, unavailable) is made again whole."""
        began = self._clock()
        if not self._kept:  # nothing kept to correct: the read about to start is new
            self._mark = began
            self._touched.clear()
            return
        since = r.stamp(self._mark - OVERLAP)
        touched = set(self._touched)
        ids: list[str] = []
        changed: list[Node] = []
        asked = {"teamId": team.id, "since": since}
        first = {**asked, "first": q.TEAM_CHANGES_FIRST}
        found = client.query(q.TEAM_CHANGES, first)["team"]["issues"]
        reported = list(found["nodes"])
        if found["pageInfo"]["hasNextPage"]:  # many: their ids by pages (a row costs 8)
            after = found["pageInfo"]["endCursor"]
            reported += client.pages(q.TEAM_CHANGES, asked, ["team", "issues"], after=after)
        ids = [n["id"] for n in reported if self._seen.get(n["id"]) != n["updatedAt"]]
        if touched or ids:
            wanted = r.some_of(team, numbers=touched, ids=ids)
            changed += r.read_rows(client, wanted, archived=True, expected=len(touched) + len(ids))
        for node in changed:
            for kept in self._kept.values():
                kept[node["id"]] = node
        self._saw(changed)
        self._touched -= touched
        self._mark = began
        self._close_over(client, team)  # no request unless an issue names one not kept

    def _keep(self, key: tuple[str, bool], nodes: list[Node], *, whole: bool = True) -> None:
        """``nodes`` kept as the read of ``key``; the oldest other read forgotten past
        ``_KEPT_READS`` (a long-lived process is asked many filters). ``whole``: nodes
        with every field (not a dashboard's), put into the other kept reads too."""
        narrow = [k for k in self._kept if k[0] not in (_BOARD, _DASHBOARD)]
        if key[0] not in (_BOARD, _DASHBOARD) and len(narrow) >= _KEPT_READS:
            del self._kept[narrow[0]]
        if whole:
            self._saw(nodes)
        else:
            self._seen.update((n["id"], n["updatedAt"]) for n in nodes if n["id"] not in self._seen)
        self._kept[key] = {n["id"]: n for n in nodes}

    def _saw(self, nodes: Iterable[Node]) -> None:
        """Whole ``nodes`` as just read: in every kept read that holds them, so that one
        ``updatedAt`` by id stands for all (a read older than it is not left behind)."""
        for node in nodes:
            self._seen[node["id"]] = node["updatedAt"]
            for kept in self._kept.values():
                if node["id"] in kept:
                    kept[node["id"]] = node


def _closed(node: Node) -> bool:
    return (node.get("state") or {}).get("type") in CLOSED_TYPES


def _named(node: Node, team_key: str) -> set[int]:
    """The numbers of the team's issues ``node`` names: its parent, sub-issues and the
    issues either side of its relations."""
    found = [node.get("parent")]
    found += (node.get("children") or {}).get("nodes") or []
    found += [n.get("relatedIssue") for n in (node.get("relations") or {}).get("nodes") or []]
    found += [n.get("issue") for n in (node.get("inverseRelations") or {}).get("nodes") or []]
    prefix = f"{team_key.upper()}-"
    return {
        number_of(f["identifier"])
        for f in found
        if f and str(f.get("identifier", "")).upper().startswith(prefix)
    }
