"""``ralph debug stats``: calls, errors and time per tool, category or day, over the
events of a window (the original's ``debug_stats``, counting every category of event
rather than tool calls only, so grouping by category means something)."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ralph.debug._signature import event_name, is_error

__all__ = ["GroupBy", "GroupStats", "Stats", "debug_stats"]

NO_EVENTS = "No events found in the specified time window."


class GroupBy(enum.StrEnum):
    #: The tool, GraphQL operation, hook or phase an event is about.
    TOOL = "tool"
    CATEGORY = "category"
    DAY = "day"


@dataclass(frozen=True)
class GroupStats:
    calls: int
    errors: int
    total_duration_ms: int

    @property
    def error_rate(self) -> float:
        """Errors per call, a fraction."""
        return self.errors / self.calls if self.calls else 0.0

    @property
    def avg_duration_ms(self) -> int:
        return round(self.total_duration_ms / self.calls) if self.calls else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "errors": self.errors,
            "errorRate": self.error_rate,
            "avgDurationMs": self.avg_duration_ms,
            "totalDurationMs": self.total_duration_ms,
        }


@dataclass(frozen=True)
class Stats:
    since: str
    sessions: int
    group_by: GroupBy
    #: Key -> its numbers, the busiest first.
    groups: Mapping[str, GroupStats]

    @property
    def total_calls(self) -> int:
        return sum(g.calls for g in self.groups.values())

    @property
    def total_errors(self) -> int:
        return sum(g.errors for g in self.groups.values())

    @property
    def error_rate_percent(self) -> float:
        """Errors per hundred calls, to two decimals (the original's response field)."""
        calls = self.total_calls
        return round(self.total_errors / calls * 10000) / 100 if calls else 0.0

    def to_dict(self) -> dict[str, Any]:
        if not self.groups:
            return {"message": NO_EVENTS, "sessionsAnalyzed": 0, "since": self.since}
        return {
            "since": self.since,
            "sessionsAnalyzed": self.sessions,
            "totalCalls": self.total_calls,
            "totalErrors": self.total_errors,
            "errorRate": self.error_rate_percent,
            "groupBy": self.group_by.value,
            "groups": {key: group.to_dict() for key, group in self.groups.items()},
        }


def _key(event: Mapping[str, Any], group_by: GroupBy) -> str:
    if group_by is GroupBy.CATEGORY:
        return str(event.get("cat", "unknown"))
    if group_by is GroupBy.DAY:
        return str(event.get("ts", ""))[:10]
    return event_name(event)


def _duration(event: Mapping[str, Any]) -> int:
    value = event.get("durationMs")
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def debug_stats(
    events: Iterable[Mapping[str, Any]], *, since: str, sessions: int, group_by: GroupBy
) -> Stats:
    counts: dict[str, list[int]] = {}
    for event in events:
        numbers = counts.setdefault(_key(event, group_by), [0, 0, 0])
        numbers[0] += 1
        numbers[1] += is_error(event)
        numbers[2] += _duration(event)
    groups = {key: GroupStats(*numbers) for key, numbers in counts.items()}
    order = sorted(
        groups, key=(lambda k: k) if group_by is GroupBy.DAY else (lambda k: (-groups[k].calls, k))
    )
    return Stats(since, sessions, group_by, {key: groups[key] for key in order})
