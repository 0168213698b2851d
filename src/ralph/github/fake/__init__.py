"""An in-memory GitHub for tests and demos: it executes the client's real GraphQL
documents against a copy of GitHub's published schema it is pointed at
(``RALPH_GITHUB_SCHEMA``; graphql-core, the testing extra), with rate-limit headers and
scriptable faults, and pull requests judged as GitHub judges them (checks, reviews,
branch protection, merge queues)."""

from __future__ import annotations

from ralph.github.fake._github import FakeGitHub, Request, ScriptedFault, github_schema
from ralph.github.fake._rules import BranchProtection, CheckPlan

__all__ = [
    "BranchProtection",
    "CheckPlan",
    "FakeGitHub",
    "Request",
    "ScriptedFault",
    "github_schema",
]
