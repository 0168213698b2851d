"""The fake's share of GitHub's limits that a schema cannot show: the dynamic
content-creation throttle (GraphQL answers 200 with an UNPROCESSABLE "was submitted too
quickly" on the creating field, and nothing is created) and the resource limit that
stops a query reading too much."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from ralph.github.fake._model import GraphQLFault

__all__ = ["RESOURCE_LIMITS_EXCEEDED", "ContentThrottle", "nodes_in", "too_quickly"]

#: GitHub's words when it refuses content created too fast (the field's value is null).
TOO_QUICKLY = "was submitted too quickly"

#: What GitHub answers when a query reads more than it allows.
RESOURCE_LIMITS_EXCEEDED = {
    "data": None,
    "errors": [
        {"type": "RESOURCE_LIMITS_EXCEEDED", "message": "Resource limits for this query exceeded."}
    ],
}


def too_quickly(field: str) -> dict[str, Any]:
    """The body of a 200 that throttles the creating mutation ``field`` (createIssue...)."""
    return {
        "data": {field: None},
        "errors": [
            {
                "type": "UNPROCESSABLE",
                "path": [field],
                "locations": [{"line": 2, "column": 3}],
                "message": TOO_QUICKLY,
            }
        ],
    }


class ContentThrottle:
    """At most ``per_minute`` creations in any minute; the next one is refused."""

    def __init__(self, clock: Callable[[], float], per_minute: int) -> None:
        self.clock = clock
        self.per_minute = per_minute
        self._created: deque[float] = deque()

    def spend(self) -> None:
        now = self.clock()
        while self._created and self._created[0] <= now - 60.0:
            self._created.popleft()
        if len(self._created) >= self.per_minute:
            raise GraphQLFault("UNPROCESSABLE", TOO_QUICKLY)
        self._created.append(now)


def nodes_in(data: Any) -> int:
    """How many objects an answer holds (GitHub's limits count nodes read)."""
    if isinstance(data, dict):
        return 1 + sum(nodes_in(value) for value in data.values())
    if isinstance(data, list):
        return sum(nodes_in(value) for value in data)
    return 0
