"""An in-memory Linear for tests and demos: it executes the client's real GraphQL
documents against a copy of Linear's published schema it is pointed at
(``RALPH_LINEAR_SCHEMA``; graphql-core, the testing extra), keeps a workspace (teams,
workflow states, users, issues, comments, labels, relations), refuses what Linear
refuses, spends each key's request and complexity budgets, and can be scripted to fail."""

from __future__ import annotations

from ralph.linear.fake._limits import complexity
from ralph.linear.fake._linear import FakeLinear, Request, ScriptedFault, linear_schema
from ralph.linear.fake._model import ESTIMATE_SCALES, Issue, Team, User

__all__ = [
    "ESTIMATE_SCALES",
    "FakeLinear",
    "Issue",
    "Request",
    "ScriptedFault",
    "Team",
    "User",
    "complexity",
    "linear_schema",
]
