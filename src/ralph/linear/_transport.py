"""The Linear transport: one POST of a GraphQL payload to Linear, and what came back.

The narrow I/O boundary under :class:`ralph.linear.LinearClient`: ``HttpTransport`` speaks
HTTPS with httpx2, ``ralph.linear.fake.FakeLinear`` answers the same calls in memory.
Linear takes a personal API key as the bare ``Authorization`` value and an OAuth access
token as ``Bearer <token>`` (Linear's SDK, ``packages/sdk/src/client.ts``); a key with
``Bearer`` in front is refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ralph._graphql_http import HttpsPoster, Reply

__all__ = [
    "API_URL_VARIABLE",
    "DEFAULT_API_URL",
    "HttpTransport",
    "api_url",
    "authorization",
]

DEFAULT_API_URL = "https://api.linear.app/graphql"
#: Where a test or a proxy points Ralph instead (FakeLinear.serve gives such a URL).
API_URL_VARIABLE = "RALPH_LINEAR_API_URL"
#: The prefix Linear gives OAuth access tokens; personal API keys start ``lin_api_``.
_OAUTH_PREFIX = "lin_oauth_"


def api_url(environ: Mapping[str, str] | None = None) -> str:
    """The GraphQL endpoint: ``RALPH_LINEAR_API_URL`` when set, else Linear's."""
    value = (os.environ if environ is None else environ).get(API_URL_VARIABLE, "").strip()
    return value or DEFAULT_API_URL


def authorization(token: str) -> str:
    """The ``Authorization`` header for ``token``: an OAuth token (``lin_oauth_``, or one
    already written ``Bearer ...``) as a bearer token, an API key bare."""
    if token.startswith("Bearer "):
        return token
    return f"Bearer {token}" if token.startswith(_OAUTH_PREFIX) else token


class HttpTransport:
    """GraphQL over HTTPS to ``url`` (default: ``api_url()``)."""

    def __init__(self, url: str | None = None, *, timeout: float = 30.0) -> None:
        self.url = url or api_url()
        self._https = HttpsPoster(
            self.url, {"Content-Type": "application/json", "User-Agent": "ralph"}, timeout=timeout
        )

    def post(self, payload: Mapping[str, Any], token: str) -> Reply:
        return self._https.post_with(payload, authorization(token))

    def close(self) -> None:
        self._https.close()
