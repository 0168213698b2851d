"""Linear's GraphQL API, spoken carefully: every document in :mod:`ralph.linear.queries`
(schema-checked in the tests), one transport boundary (HTTPS, or the in-memory
:mod:`ralph.linear.fake`), pacing by the budgets Linear reports, bounded retries of
reads, and no blind resend of writes (``LinearAmbiguous``: the caller reconciles)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph._graphql_http import Reply, Transport, TransportFailure
    from ralph.linear._classify import (
        Classified,
        ResponseKind,
        classify_response,
        reset_wait,
    )
    from ralph.linear._client import LinearClient
    from ralph.linear._errors import (
        LinearAmbiguous,
        LinearAuthError,
        LinearError,
        LinearInvalid,
        LinearNotFound,
        LinearRateLimited,
        LinearUnavailable,
    )
    from ralph.linear._pacer import Budget, LinearPacer, LinearPacingPolicy, refill_interval
    from ralph.linear._transport import (
        API_URL_VARIABLE,
        DEFAULT_API_URL,
        HttpTransport,
        api_url,
        authorization,
    )
else:
    # Loaded on first use (ralph._lazy), from the imports above.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "API_URL_VARIABLE",
    "DEFAULT_API_URL",
    "Budget",
    "Classified",
    "HttpTransport",
    "LinearAmbiguous",
    "LinearAuthError",
    "LinearClient",
    "LinearError",
    "LinearInvalid",
    "LinearNotFound",
    "LinearPacer",
    "LinearPacingPolicy",
    "LinearRateLimited",
    "LinearUnavailable",
    "Reply",
    "ResponseKind",
    "Transport",
    "TransportFailure",
    "api_url",
    "authorization",
    "classify_response",
    "refill_interval",
    "reset_wait",
]
