"""Work streams: the parts of a group that can be planned and built independently.

Issues that will modify a common file, or that block one another, belong to one
stream (union-find). Ids, order and rationale text are the original's
and do not depend on the order of the input.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ralph._json import int_field, int_list_field, object_field, str_list_field
from ralph.pipeline._issues import IssueState
from ralph.pipeline._position import PipelinePosition, detect_position

__all__ = [
    "FileOwnership",
    "StreamPosition",
    "WorkStream",
    "WorkStreamResult",
    "detect_stream_positions",
    "detect_work_streams",
    "stream_id",
]


@dataclass(frozen=True)
class FileOwnership:
    """The files an issue will modify (its research document's "Will Modify" list)."""

    number: int
    files: tuple[str, ...] = ()
    blocked_by: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "files", tuple(self.files))
        object.__setattr__(self, "blocked_by", tuple(self.blocked_by))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FileOwnership:
        data = object_field(data, "a file-ownership entry")
        number = int_field(data, "number")
        assert number is not None
        return cls(
            number=number,
            files=str_list_field(data, "files"),
            blocked_by=int_list_field(data, "blockedBy", "blocked_by"),
        )


@dataclass(frozen=True)
class WorkStream:
    id: str
    issues: tuple[int, ...]
    shared_files: tuple[str, ...]
    primary_issue: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "issues", tuple(self.issues))
        object.__setattr__(self, "shared_files", tuple(self.shared_files))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "issues": list(self.issues),
            "sharedFiles": list(self.shared_files),
            "primaryIssue": self.primary_issue,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WorkStream:
        data = object_field(data, "a work stream")
        issues = tuple(sorted(int_list_field(data, "issues")))
        primary = int_field(data, "primaryIssue", "primary_issue", required=False)
        return cls(
            id=str(data.get("id") or stream_id(issues)),
            issues=issues,
            shared_files=str_list_field(data, "sharedFiles", "shared_files"),
            primary_issue=primary if primary is not None else (issues[0] if issues else 0),
        )


@dataclass(frozen=True)
class WorkStreamResult:
    streams: tuple[WorkStream, ...]
    total_issues: int
    total_streams: int
    rationale: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "streams": [s.to_dict() for s in self.streams],
            "totalIssues": self.total_issues,
            "totalStreams": self.total_streams,
            "rationale": self.rationale,
        }


def stream_id(issues: Iterable[int]) -> str:
    """``stream-42-44``: the sorted issue numbers of a stream."""
    return "stream-" + "-".join(str(n) for n in sorted(issues))


class _UnionFind:
    """Union by rank with path compression; on equal rank the second root joins the first."""

    def __init__(self) -> None:
        self._parent: dict[str, str] = {}
        self._rank: dict[str, int] = {}

    def find(self, key: str) -> str:
        parent = self._parent.setdefault(key, key)
        if parent == key:
            self._rank.setdefault(key, 0)
            return key
        root = self.find(parent)
        self._parent[key] = root
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        if self._rank[ra] < self._rank[rb]:
            ra, rb = rb, ra
        self._parent[rb] = ra
        if self._rank[ra] == self._rank[rb]:
            self._rank[ra] += 1


def _describe(stream: WorkStream) -> str:
    if len(stream.issues) == 1:
        return f"Stream {stream.id}: independent."
    if stream.shared_files:
        return f"Stream {stream.id}: issues share [{', '.join(stream.shared_files)}]."
    return f"Stream {stream.id}: co-clustered via blockedBy relationship."


def detect_work_streams(
    items: Sequence[FileOwnership | Mapping[str, Any]],
) -> WorkStreamResult:
    """Partition issues into streams by shared files and blocked-by edges inside the set.

    Items may also be the original's ``{number, files, blockedBy}`` objects."""
    owned = [i if isinstance(i, FileOwnership) else FileOwnership.from_dict(i) for i in items]
    if not owned:
        return WorkStreamResult(
            streams=(), total_issues=0, total_streams=0, rationale=("No issues provided.")
        )
    numbers = {item.number for item in owned}
    union_find = _UnionFind()
    for item in owned:
        issue_key = f"issue:{item.number}"
        union_find.find(issue_key)
        for path in item.files:
            union_find.union(f"file:{path}", issue_key)
        for dep in item.blocked_by:
            if dep in numbers:
                union_find.union(f"issue:{dep}", issue_key)

    components: dict[str, list[FileOwnership]] = {}
    for item in owned:
        components.setdefault(union_find.find(f"issue:{item.number}"), []).append(item)

    streams = []
    for members in components.values():
        issues = tuple(sorted({m.number for m in members}))
        shared: tuple[str, ...] = ()
        if len(issues) > 1:
            # Duplicates inside one issue's list count too (the original's behaviour).
            occurrences = Counter(path for m in members for path in m.files)
            shared = tuple(sorted(path for path, n in occurrences.items() if n >= 2))
        streams.append(
            WorkStream(
                id=stream_id(issues), issues=issues, shared_files=shared, primary_issue=issues[0]
            )
        )
    streams.sort(key=lambda s: s.primary_issue)
    rationale = " ".join([f"{len(streams)} stream(s) detected.", *map(_describe, streams)])
    return WorkStreamResult(
        streams=tuple(streams),
        total_issues=len(numbers),
        total_streams=len(streams),
        rationale=rationale,
    )


@dataclass(frozen=True)
class StreamPosition:
    stream_id: str
    issues: tuple[IssueState, ...]
    position: PipelinePosition

    def to_dict(self) -> dict[str, Any]:
        return {
            "streamId": self.stream_id,
            "issues": [i.to_dict() for i in self.issues],
            "position": self.position.to_dict(),
        }


def detect_stream_positions(
    streams: Sequence[WorkStream | Mapping[str, Any]],
    issue_states: Iterable[IssueState | Mapping[str, Any]],
) -> list[StreamPosition]:
    """The pipeline position of each stream, from the states of its own issues. Streams
    and issues may also be given as the original's JSON objects."""
    by_number = {
        issue.number: issue
        for issue in (
            i if isinstance(i, IssueState) else IssueState.from_dict(i) for i in issue_states
        )
    }
    results = []
    for given in streams:
        stream = given if isinstance(given, WorkStream) else WorkStream.from_dict(given)
        issues = tuple(by_number[n] for n in stream.issues if n in by_number)
        position = detect_position(
            issues, is_group=len(issues) > 1, group_primary=stream.primary_issue
        )
        results.append(StreamPosition(stream_id=stream.id, issues=issues, position=position))
    return results
