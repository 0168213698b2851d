"""The GitHub transport: one POST of a GraphQL payload, and what came back.

This is the narrow I/O boundary under the client. ``HttpTransport`` speaks HTTPS with
httpx2 (Pydantic's maintained continuation of HTTPX, which ``mcp`` already brings);
``ralph.github.fake.FakeGitHub`` answers the same calls in memory. Everything above
this line (pacing, retries, reconciliation) is the same for both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ralph._graphql_http import HttpsPoster, Reply

__all__ = ["DEFAULT_API_URL", "HttpTransport"]

DEFAULT_API_URL = "https://api.github.com/graphql"


class HttpTransport:
    """GraphQL over HTTPS to ``url`` (GitHub, or a GitHub Enterprise Server's
    ``https://HOST/api/graphql``)."""

    def __init__(self, url: str = DEFAULT_API_URL, *, timeout: float = 30.0) -> None:
        self.url = url
        self._https = HttpsPoster(
            url,
            {"Accept": "application/vnd.github+json", "User-Agent": "ralph"},
            timeout=timeout,
        )

    def post(self, payload: Mapping[str, Any], token: str) -> Reply:
        return self._https.post_with(payload, f"bearer {token}")

    def close(self) -> None:
        self._https.close()
