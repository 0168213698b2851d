"""The team's issues read whole (``TeamIssues``), kept between polls.

``ralph serve`` and the web board read the whole board on every poll, and a full read
of a Linear team costs thousands of complexity points whatever its size (a connection
costs its page size): at a 30-second poll that is several times Linear's hourly budget.
So a full read is kept, and the next one first asks Linear whether any issue changed
since (``TeamChanges``, a few points): unchanged, the kept read is the answer. A write
of this process's client since the kept read means a full one, whatever it changed;
what another's leaves no ``updatedAt`` of (a relation a person adds, perhaps) is read
at the latest ``FULL_READ_SECONDS`` later.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ralph.linear import LinearClient
from ralph.tracker.linear import _writes as w
from ralph.tracker.linear._team import LinearTeam

__all__ = ["FULL_READ_SECONDS", "TeamReads"]

#: The longest a kept read stands in for a full one.
FULL_READ_SECONDS = 300.0

Node = dict[str, Any]


@dataclass(frozen=True)
class _Kept:
    nodes: list[Node]
    #: Each issue's id to its ``updatedAt`` in that read.
    seen: dict[str, str]
    at: float
    #: The client's writes before it.
    writes: int


class TeamReads:
    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._kept: dict[bool, _Kept] = {}

    def issues(self, client: LinearClient, team: LinearTeam, *, archived: bool) -> list[Node]:
        """Every issue of the team (archived ones too with ``archived``): the kept read
        while Linear says nothing changed, else a full read, kept."""
        with self._lock:
            kept = self._kept.get(archived)
        if (
            kept is not None
            and kept.writes == client.writes
            and self._clock() - kept.at < FULL_READ_SECONDS
            and not w.changed_since(client, team, kept.seen)
        ):
            return kept.nodes
        at, writes = self._clock(), client.writes
        nodes = list(w.team_issues(client, team, archived=archived))
        seen = {n["id"]: n["updatedAt"] for n in nodes}
        with self._lock:
            self._kept[archived] = _Kept(nodes, seen, at, writes)
        return nodes
