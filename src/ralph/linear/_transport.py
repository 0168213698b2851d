"""The Linear transport: one POST of a GraphQL payload to Linear, and what came back.

The narrow I/O boundary under :class:`ralph.linear.LinearClient`: ``HttpTransport`` speaks
HTTPS with httpx2, ``ralph.linear.fake.FakeLinear`` answers the same calls in memory.
Linear takes a personal API key as the bare ``Authorization`` value and an OAuth access
token as ``Bearer <token>`` (Linear's SDK, ``packages/sdk/src/client.ts``); a key with
``Bearer`` in front is refused.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ralph._secrets import redact

__all__ = [
    "API_URL_VARIABLE",
    "DEFAULT_API_URL",
    "HttpTransport",
    "Reply",
    "Transport",
    "TransportFailure",
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


@dataclass(frozen=True)
class Reply:
    status: int
    #: Header names in lower case.
    headers: Mapping[str, str] = field(default_factory=dict)
    #: The decoded JSON body, or None when the body was not JSON.
    body: Any = None


class TransportFailure(Exception):
    """No answer came back (reset, timeout): the request may or may not have run."""


class Transport(Protocol):
    def post(self, payload: Mapping[str, Any], token: str) -> Reply:
        """Send ``payload`` (query, variables) with ``token``; TransportFailure when no
        answer came back."""

    def close(self) -> None:
        """Release connections (nothing, in memory)."""


class HttpTransport:
    """GraphQL over HTTPS to ``url`` (default: ``api_url()``)."""

    def __init__(self, url: str | None = None, *, timeout: float = 30.0) -> None:
        import httpx2

        self.url = url or api_url()
        self._httpx = httpx2
        self._client = httpx2.Client(
            timeout=timeout,
            headers={"Content-Type": "application/json", "User-Agent": "ralph"},
        )

    def post(self, payload: Mapping[str, Any], token: str) -> Reply:
        try:
            response = self._client.post(
                self.url, json=dict(payload), headers={"Authorization": authorization(token)}
            )
        except self._httpx.TransportError as exc:  # connect, read, timeouts...
            raise TransportFailure(redact(f"{type(exc).__name__}: {exc}")) from None
        try:
            body = json.loads(response.content) if response.content else None
        except ValueError:
            body = None
        headers = {name.lower(): value for name, value in response.headers.items()}
        return Reply(response.status_code, headers, body)

    def close(self) -> None:
        self._client.close()
