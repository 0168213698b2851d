"""The fake's share of Linear's limits that a schema cannot show: a query's complexity,
the two leaky buckets every API key has, and the answers Linear gives when one is spent.

Complexity follows Linear's rate-limiting documentation: each property (a scalar field)
costs 0.1 point, each object 1, and a connection (a field whose type is a
``...Connection``) multiplies what its children cost by its page (``first`` or
``last``, 50 when neither is given) -- all of them, ``pageInfo`` too -- plus the 1 of
the connection object itself. The total is rounded up. Linear's documentation names
no weights past these (a mutation's base cost is not given a number), so a mutation
is priced by its selection like a query.

The buckets are leaky: each refills at ``limit`` an hour, continuously, and the reset
an answer reports is when the bucket would be full again (epoch milliseconds), not a
fixed window's end.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    VariableNode,
    get_named_type,
    parse,
)

__all__ = ["DEFAULT_PAGE", "LeakyBucket", "complexity", "rate_limited_body"]

#: Linear's page when a connection names none.
DEFAULT_PAGE = 50
HOUR = 3600.0


def complexity(
    schema: GraphQLSchema, source: str | DocumentNode, variables: Mapping[str, Any]
) -> int:
    """The points a request costs (see the module's docstring)."""
    document = parse(source) if isinstance(source, str) else source
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    operation = next(d for d in document.definitions if isinstance(d, OperationDefinitionNode))
    root = schema.mutation_type if operation.operation.value == "mutation" else schema.query_type

    def page(field: FieldNode) -> int:
        for argument in field.arguments or ():
            if argument.name.value in ("first", "last"):
                value = argument.value
                if isinstance(value, IntValueNode):
                    return int(value.value)
                if isinstance(value, VariableNode):
                    given = variables.get(value.name.value)
                    return DEFAULT_PAGE if given is None else int(given)  # 0 is a page
        return DEFAULT_PAGE

    def cost(selections: Any, parent: Any) -> float:
        total = 0.0
        for selection in selections:
            if isinstance(selection, FieldNode):
                total += field_cost(selection, parent)
            elif isinstance(selection, InlineFragmentNode):
                condition = selection.type_condition
                kind = schema.get_type(condition.name.value) if condition else parent
                total += cost(selection.selection_set.selections, kind)
            elif isinstance(selection, FragmentSpreadNode):
                fragment = fragments[selection.name.value]
                kind = schema.get_type(fragment.type_condition.name.value)
                total += cost(fragment.selection_set.selections, kind)
        return total

    def field_cost(field: FieldNode, parent: Any) -> float:
        if field.selection_set is None:
            return 0.1
        definition = (
            parent.fields.get(field.name.value) if isinstance(parent, GraphQLObjectType) else None
        )
        kind = get_named_type(definition.type) if definition is not None else None
        if kind is None or not kind.name.endswith("Connection"):
            return 1.0 + cost(field.selection_set.selections, kind)
        return 1.0 + page(field) * cost(field.selection_set.selections, kind)

    return math.ceil(cost(operation.selection_set.selections, root) - 1e-9)


class LeakyBucket:
    """One of Linear's budgets: ``limit`` an hour, refilled at a constant rate."""

    def __init__(self, limit: float, clock: Callable[[], float], period: float = HOUR) -> None:
        self.limit = limit
        self.period = period
        self.clock = clock
        self.level = float(limit)
        self._at = clock()

    def refill(self) -> float:
        now = self.clock()
        self.level = min(self.limit, self.level + (now - self._at) * self.limit / self.period)
        self._at = now
        return self.level

    def has(self, amount: float) -> bool:
        return self.refill() >= amount

    def take(self, amount: float) -> None:
        self.refill()
        self.level -= amount

    def reset_at(self) -> float:
        """Epoch seconds when the bucket is full again."""
        return self._at + (self.limit - self.level) * self.period / self.limit

    def headers(self, name: str) -> dict[str, str]:
        return {
            f"x-ratelimit-{name}-limit": str(int(self.limit)),
            f"x-ratelimit-{name}-remaining": str(max(int(self.level), 0)),
            # Linear's resets are epoch milliseconds.
            f"x-ratelimit-{name}-reset": str(int(self.reset_at() * 1000)),
        }


def rate_limited_body(message: str = "Rate limit exceeded") -> dict[str, Any]:
    """What Linear answers (HTTP 400) when a budget is spent."""
    return {
        "data": None,
        "errors": [
            {
                "message": message,
                "extensions": {
                    "code": "RATELIMITED",
                    "type": "ratelimited",
                    "statusCode": 429,
                    "userError": True,
                    "userPresentableMessage": "Too many requests. Please try again later.",
                },
            }
        ],
    }
