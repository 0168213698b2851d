"""Group detection: which issues are implemented together, and in what order.

Membership starts as in the original (the seed's siblings through its parent, or the
children of an epic seed, the epic itself excluded) and is then closed transitively
over both blocked-by and blocking edges of every member. The original never expanded
the seed's direct dependencies and ignored ``blocking`` edges (docs/compatibility.md, GD6 and
GD9); here the closure is complete. Issues with sub-issues are containers: reaching one
through a dependency makes it an external blocker, never a member.

The order is topological (blockers first) with ties broken by issue number.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ralph._json import int_field, int_list_field, object_field, optional_str
from ralph.errors import DependencyCycle, IssueNotFound

__all__ = ["Fetch", "FetchMany", "GroupResult", "IssueRelations", "detect_group"]


@dataclass(frozen=True)
class IssueRelations:
    """An issue's place in the tree and its dependency edges, as issue numbers."""

    number: int
    title: str = ""
    parent: int | None = None
    sub_issues: tuple[int, ...] = ()
    blocked_by: tuple[int, ...] = ()
    blocking: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        for name in ("sub_issues", "blocked_by", "blocking"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IssueRelations:
        data = object_field(data, "an issue")
        number = int_field(data, "number")
        assert number is not None
        return cls(
            number=number,
            title=optional_str(data, "title") or "",
            parent=int_field(data, "parent", "parentNumber", required=False),
            sub_issues=int_list_field(data, "subIssues", "sub_issues"),
            blocked_by=int_list_field(data, "blockedBy", "blocked_by"),
            blocking=int_list_field(data, "blocking"),
        )


#: Looks an issue up by number; None when it does not exist (or cannot be seen).
Fetch = Callable[[int], IssueRelations | None]
#: Looks several issues up at once (where one read of many costs less than one each);
#: an issue missing from the answer does not exist (or cannot be seen).
FetchMany = Callable[[Sequence[int]], Mapping[int, IssueRelations]]


@dataclass(frozen=True)
class GroupResult:
    """Members in implementation order; the primary is the first of them."""

    issues: tuple[int, ...]
    primary: int
    is_group: bool

    def to_dict(self) -> dict[str, Any]:
        return {"issues": list(self.issues), "primary": self.primary, "isGroup": self.is_group}


class _Lookup:
    """Memoises ``fetch`` so each issue is asked for once; with ``fetch_many``, the
    issues asked for together (an epic's children) are read together."""

    def __init__(self, fetch: Fetch, fetch_many: FetchMany | None = None) -> None:
        self._fetch = fetch
        self._fetch_many = fetch_many
        self._seen: dict[int, IssueRelations | None] = {}

    def __call__(self, number: int) -> IssueRelations | None:
        if number not in self._seen:
            self._seen[number] = self._fetch(number)
        return self._seen[number]

    def prefetch(self, numbers: Sequence[int]) -> None:
        missing = [n for n in dict.fromkeys(numbers) if n not in self._seen]
        if self._fetch_many is None or len(missing) < 2:
            return
        found = self._fetch_many(missing)
        for number in missing:
            self._seen[number] = found.get(number)


def _initial_members(seed: IssueRelations, lookup: _Lookup) -> dict[int, IssueRelations]:
    if seed.parent is not None:
        parent = lookup(seed.parent)
        if parent is not None:
            lookup.prefetch(parent.sub_issues)
            members = {n: r for n in parent.sub_issues if (r := lookup(n)) is not None}
            members[seed.number] = seed
            return members
    if seed.sub_issues:
        lookup.prefetch(seed.sub_issues)
        children = {n: r for n in seed.sub_issues if (r := lookup(n)) is not None}
        if children:
            return children
    return {seed.number: seed}


def _close_over_dependencies(members: dict[int, IssueRelations], lookup: _Lookup) -> None:
    parents = {m.parent for m in members.values() if m.parent is not None}
    queue = list(members.values())
    while queue:
        member = queue.pop()
        for number in (*member.blocked_by, *member.blocking):
            if number in members or number in parents:
                continue
            related = lookup(number)
            if related is None or related.sub_issues:
                continue  # unknown, or an epic: an external blocker, not a member
            members[number] = related
            queue.append(related)


def _edges(members: Mapping[int, IssueRelations]) -> dict[int, set[int]]:
    """blocker -> the members it blocks, from either side of each edge."""
    successors: dict[int, set[int]] = {n: set() for n in members}
    for number, relations in members.items():
        for blocker in relations.blocked_by:
            if blocker in members and blocker != number:
                successors[blocker].add(number)
        for blocked in relations.blocking:
            if blocked in members and blocked != number:
                successors[number].add(blocked)
    return successors


def _cycle_members(remaining: set[int], successors: Mapping[int, set[int]]) -> set[int]:
    """Of the issues a topological sort could not place, those on or between cycles: peel
    off, repeatedly, every issue that blocks nothing that is left."""
    predecessors: dict[int, set[int]] = {n: set() for n in remaining}
    out_degree = {}
    for number in remaining:
        targets = successors[number] & remaining
        out_degree[number] = len(targets)
        for target in targets:
            predecessors[target].add(number)
    sinks = [n for n, degree in out_degree.items() if degree == 0]
    left = set(remaining)
    while sinks:
        number = sinks.pop()
        left.discard(number)
        for blocker in predecessors[number]:
            out_degree[blocker] -= 1
            if out_degree[blocker] == 0:
                sinks.append(blocker)
    return left


def _topological_order(members: Mapping[int, IssueRelations]) -> list[int]:
    successors = _edges(members)
    in_degree = dict.fromkeys(members, 0)
    for targets in successors.values():
        for target in targets:
            in_degree[target] += 1
    ready = [n for n, degree in in_degree.items() if degree == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        number = heapq.heappop(ready)
        order.append(number)
        for target in successors[number]:
            in_degree[target] -= 1
            if in_degree[target] == 0:
                heapq.heappush(ready, target)
    if len(order) != len(members):
        raise DependencyCycle(_cycle_members(set(members) - set(order), successors))
    return order


def detect_group(seed: int, fetch: Fetch, fetch_many: FetchMany | None = None) -> GroupResult:
    """The group ``seed`` belongs to, in implementation order; ``fetch_many`` reads the
    siblings together (what ``fetch`` would give each).

    Raises IssueNotFound when the seed does not exist and DependencyCycle when members
    block each other in a circle.
    """
    lookup = _Lookup(fetch, fetch_many)
    seed_relations = lookup(seed)
    if seed_relations is None:
        raise IssueNotFound(seed)
    members = _initial_members(seed_relations, lookup)
    _close_over_dependencies(members, lookup)
    order = _topological_order(members)
    return GroupResult(issues=tuple(order), primary=order[0], is_group=len(order) > 1)
