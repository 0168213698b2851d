"""An in-memory GitHub for tests and demos: it executes the client's real GraphQL
documents against GitHub's published schema (graphql-core; ``pip install
'ralph[testing]'``), with rate-limit headers and scriptable faults."""

from __future__ import annotations

from ralph.github.fake._github import FakeGitHub, Request, ScriptedFault, github_schema

__all__ = ["FakeGitHub", "Request", "ScriptedFault", "github_schema"]
