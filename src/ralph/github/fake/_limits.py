"""The fake's share of GitHub's limits that a schema cannot show: the dynamic
content-creation throttle (GraphQL answers 200 with an UNPROCESSABLE "was submitted too
quickly" on the creating field, and nothing is created) and the resource limit that
stops a query reading too much."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ralph.github.fake._model import GraphQLFault

if TYPE_CHECKING:
    from graphql import DocumentNode

__all__ = [
    "RESOURCE_LIMITS_EXCEEDED",
    "ContentThrottle",
    "nodes_in",
    "primary_points",
    "too_quickly",
]

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


def primary_points(source: str | DocumentNode, variables: Mapping[str, Any]) -> int:
    """What a request costs of the primary limit, by GitHub's formula: each connection
    (a field given ``first`` or ``last``) costs one request per parent it is read under;
    the sum over 100, rounded, at least 1. A mutation costs 1."""
    from graphql import parse
    from graphql.language import (
        FieldNode,
        FragmentDefinitionNode,
        FragmentSpreadNode,
        InlineFragmentNode,
        IntValueNode,
        OperationDefinitionNode,
        VariableNode,
    )

    document = parse(source) if isinstance(source, str) else source
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    operation = next(d for d in document.definitions if isinstance(d, OperationDefinitionNode))
    if operation.operation.value == "mutation":
        return 1

    def size(field: FieldNode) -> int | None:
        for argument in field.arguments or ():
            if argument.name.value in ("first", "last"):
                value = argument.value
                if isinstance(value, IntValueNode):
                    return int(value.value)
                if isinstance(value, VariableNode):
                    return int(variables.get(value.name.value) or 0)
        return None

    def walk(selections: Any, parents: int) -> int:
        total = 0
        for selection in selections:
            if isinstance(selection, FieldNode):
                first = size(selection)
                below = parents
                if first is not None:
                    total += parents
                    below = parents * max(first, 1)
                if selection.selection_set is not None:
                    total += walk(selection.selection_set.selections, below)
            elif isinstance(selection, InlineFragmentNode):
                total += walk(selection.selection_set.selections, parents)
            elif isinstance(selection, FragmentSpreadNode):
                fragment = fragments[selection.name.value]
                total += walk(fragment.selection_set.selections, parents)
        return total

    return max(1, round(walk(operation.selection_set.selections, 1) / 100))


def nodes_in(data: Any) -> int:
    """How many objects an answer holds (GitHub's limits count nodes read)."""
    if isinstance(data, dict):
        return 1 + sum(nodes_in(value) for value in data.values())
    if isinstance(data, list):
        return sum(nodes_in(value) for value in data)
    return 0
