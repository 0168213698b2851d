"""Jira Cloud's REST API (v3), spoken carefully: one transport boundary (HTTPS with an
email and API token, or the in-memory :mod:`ralph.jira.fake`), pacing by what Jira's
answers say (429 and ``Retry-After``, ``X-RateLimit-*``), bounded retries of reads, no
blind resend of writes (``JiraAmbiguous``: the caller reconciles), and text as ADF."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.jira._adf import to_adf, to_text
    from ralph.jira._classify import Classified, ResponseKind, classify_reply, wait_of
    from ralph.jira._client import MAX_RECONCILE, SEARCH_PAGE, JiraClient
    from ralph.jira._errors import (
        JiraAmbiguous,
        JiraAuthError,
        JiraError,
        JiraInvalid,
        JiraNotFound,
        JiraRateLimited,
        JiraUnavailable,
    )
    from ralph.jira._pacer import JiraPacer, JiraPacingPolicy
    from ralph.jira._transport import HttpsTransport, basic_authorization
else:
    # Loaded on first use (ralph._lazy), from the imports above.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "MAX_RECONCILE",
    "SEARCH_PAGE",
    "Classified",
    "HttpsTransport",
    "JiraAmbiguous",
    "JiraAuthError",
    "JiraClient",
    "JiraError",
    "JiraInvalid",
    "JiraNotFound",
    "JiraPacer",
    "JiraPacingPolicy",
    "JiraRateLimited",
    "JiraUnavailable",
    "ResponseKind",
    "basic_authorization",
    "classify_reply",
    "to_adf",
    "to_text",
    "wait_of",
]
