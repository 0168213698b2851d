"""GitHub's GraphQL API, spoken carefully: every document in :mod:`ralph.github.queries`
(schema-checked in the tests), one transport boundary (HTTPS, or the in-memory
:mod:`ralph.github.fake`), pacing by GitHub's published limits, bounded retries, and
reconcile-before-retry for mutations that create things."""

from __future__ import annotations

from ralph.github._classify import Outcome, Verdict, classify
from ralph.github._client import GitHubClient, Tokens, marker, strip_markers
from ralph.github._closing import closing_references
from ralph.github._pacer import Pacer, PacingPolicy
from ralph.github._transport import (
    DEFAULT_API_URL,
    HttpTransport,
    Reply,
    Transport,
    TransportFailure,
)

__all__ = [
    "DEFAULT_API_URL",
    "GitHubClient",
    "HttpTransport",
    "Outcome",
    "Pacer",
    "PacingPolicy",
    "Reply",
    "Tokens",
    "Transport",
    "TransportFailure",
    "Verdict",
    "classify",
    "closing_references",
    "marker",
    "strip_markers",
]
