"""GitHub's GraphQL API, spoken carefully: every document in :mod:`ralph.github.queries`
(schema-checked in the tests), one transport boundary (HTTPS, or the in-memory
:mod:`ralph.github.fake`), pacing by GitHub's published limits, bounded retries, and
reconcile-before-retry for mutations that create things."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph._graphql_http import Reply, Transport, TransportFailure
    from ralph.github._classify import Classified, ResponseKind, classify_response
    from ralph.github._client import (
        BatchAnswer,
        GitHubClient,
        PartlyLanded,
        marker,
        strip_markers,
    )
    from ralph.github._closing import closing_references
    from ralph.github._features import (
        ALL_ISSUE_FEATURES,
        NO_DEPENDENCIES,
        NO_SUB_ISSUES,
        IssueFeatures,
        features_of,
        issue_features,
    )
    from ralph.github._pacer import Pacer, PacingPolicy
    from ralph.github._shared_pacing import SharedPacing, pacing_dir
    from ralph.github._tokens import TokenKind, Tokens, token_kind
    from ralph.github._transport import (
        DEFAULT_API_URL,
        HttpTransport,
    )
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "ALL_ISSUE_FEATURES",
    "DEFAULT_API_URL",
    "NO_DEPENDENCIES",
    "NO_SUB_ISSUES",
    "BatchAnswer",
    "Classified",
    "GitHubClient",
    "HttpTransport",
    "IssueFeatures",
    "Pacer",
    "PacingPolicy",
    "PartlyLanded",
    "Reply",
    "ResponseKind",
    "SharedPacing",
    "TokenKind",
    "Tokens",
    "Transport",
    "TransportFailure",
    "classify_response",
    "closing_references",
    "features_of",
    "issue_features",
    "marker",
    "pacing_dir",
    "strip_markers",
    "token_kind",
]
