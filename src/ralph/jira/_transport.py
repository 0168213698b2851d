"""The Jira transport: REST over HTTPS to one Jira Cloud site, with Basic auth.

Jira Cloud takes an Atlassian account's email and an API token as HTTP Basic
credentials. The token comes from the environment (``ralph.config``'s ``jira_token``),
never from ralph.toml; it and the header made of it are registered with
``ralph._secrets`` so no message or log keeps them.
"""

from __future__ import annotations

import base64

from ralph._graphql_http import Reply
from ralph._rest_http import HttpsRequester, RestRequest
from ralph._secrets import register_secret

__all__ = ["HttpsTransport", "basic_authorization"]


def basic_authorization(email: str, token: str) -> str:
    """The ``Authorization`` header for ``email`` and ``token`` (registered as secrets)."""
    register_secret(token)
    encoded = base64.b64encode(f"{email}:{token}".encode()).decode()
    register_secret(encoded)
    return f"Basic {encoded}"


class HttpsTransport:
    """REST over HTTPS to the Jira site at ``url`` (``https://acme.atlassian.net``)."""

    def __init__(self, url: str, email: str, token: str, *, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        headers = {
            "Authorization": basic_authorization(email, token),
            "Accept": "application/json",
            "User-Agent": "ralph",
        }
        self._https = HttpsRequester(self.url, headers, timeout=timeout)

    def send(self, request: RestRequest) -> Reply:
        return self._https.send(request)

    def close(self) -> None:
        self._https.close()
