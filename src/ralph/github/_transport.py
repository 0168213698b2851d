"""The GitHub transport: one POST of a GraphQL payload, and what came back.

This is the narrow I/O boundary under the client. ``HttpTransport`` speaks HTTPS with
httpx2 (Pydantic's maintained continuation of HTTPX, which ``mcp`` already brings);
``ralph.github.fake.FakeGitHub`` answers the same calls in memory. Everything above
this line (pacing, retries, reconciliation) is the same for both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["DEFAULT_API_URL", "HttpTransport", "Reply", "Transport", "TransportFailure"]

DEFAULT_API_URL = "https://api.github.com/graphql"


@dataclass(frozen=True)
class Reply:
    status: int
    #: Header names in lower case.
    headers: Mapping[str, str] = field(default_factory=dict)
    #: The decoded JSON body, or None when the body was not JSON.
    body: Any = None


class TransportFailure(Exception):
    """The request may or may not have reached GitHub (reset, timeout): indeterminate."""


class Transport(Protocol):
    def post(self, payload: Mapping[str, Any], token: str) -> Reply:
        """Send ``payload`` (query, variables) with ``token``; TransportFailure when no
        answer came back."""

    def close(self) -> None:
        """Release connections (nothing, in memory)."""


class HttpTransport:
    """GraphQL over HTTPS to ``url`` (GitHub, or a GitHub Enterprise Server's
    ``https://HOST/api/graphql``)."""

    def __init__(self, url: str = DEFAULT_API_URL, *, timeout: float = 30.0) -> None:
        import httpx2

        self.url = url
        self._httpx = httpx2
        self._client = httpx2.Client(
            timeout=timeout,
            headers={"Accept": "application/vnd.github+json", "User-Agent": "ralph"},
        )

    def post(self, payload: Mapping[str, Any], token: str) -> Reply:
        try:
            response = self._client.post(
                self.url, json=dict(payload), headers={"Authorization": f"bearer {token}"}
            )
        except self._httpx.TransportError as exc:  # connect, read, timeouts...
            raise TransportFailure(f"{type(exc).__name__}: {exc}") from None
        try:
            body = json.loads(response.content) if response.content else None
        except ValueError:
            body = None
        headers = {name.lower(): value for name, value in response.headers.items()}
        return Reply(response.status_code, headers, body)

    def close(self) -> None:
        self._client.close()
