"""What a Jira answer means, decided once (pure).

Jira Cloud answers errors with ``{"errorMessages": [...], "errors": {field: message}}``
and the HTTP status says the kind: 401 the credentials, 403 a permission, 404 an issue
or project the account cannot see, 429 a rate limit (with ``Retry-After`` seconds and
``X-RateLimit-Reset``, an ISO 8601 time, per Jira's rate-limiting guide), other 4xx a
refused input, 5xx and a dropped connection *indeterminate* (a write may have run). A
503 may carry ``Retry-After`` too ("a resource limit has been reached"): waited like a
rate limit by a read, never resent by a write.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ralph._graphql_http import Reply

__all__ = ["FALLBACK_WAIT", "Classified", "ResponseKind", "classify_reply", "error_text", "wait_of"]

#: When a 429 names no wait: ten seconds (the client doubles it on repeats).
FALLBACK_WAIT = 10.0


class ResponseKind(enum.Enum):
    OK = "ok"
    RATE_LIMITED = "rate limited"
    AUTH = "auth"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not found"
    INVALID = "invalid"
    INDETERMINATE = "indeterminate"


@dataclass(frozen=True)
class Classified:
    kind: ResponseKind
    body: Any = None
    message: str = ""
    status: int = 0
    #: Seconds Jira asks to wait (``Retry-After`` or until ``X-RateLimit-Reset``).
    wait: float | None = None


def error_text(body: Any) -> str:
    """Jira's error words in one line: its ``errorMessages`` then each field's error."""
    if not isinstance(body, dict):
        return ""
    parts = [str(m) for m in body.get("errorMessages") or [] if m]
    errors = body.get("errors")
    if isinstance(errors, dict):
        parts.extend(f"{field}: {message}" for field, message in errors.items())
    if not parts and body.get("message"):
        parts.append(str(body["message"]))
    return "; ".join(parts)


def wait_of(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds to wait before the next request: ``Retry-After``, else the time to
    ``X-RateLimit-Reset``; None when neither says."""
    value = headers.get("retry-after", "").strip()
    if value:
        try:
            return max(float(value), 0.0)
        except ValueError:
            pass
    reset = headers.get("x-ratelimit-reset", "").strip()
    if reset:
        try:
            at = datetime.fromisoformat(reset.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
        return max(at - now, 0.0)
    return None


def classify_reply(reply: Reply, now: float) -> Classified:
    status = reply.status
    message = error_text(reply.body) or f"HTTP {status}"

    def of(kind: ResponseKind, **more: Any) -> Classified:
        return Classified(kind, reply.body, message, status, **more)

    if 200 <= status < 300:
        return Classified(ResponseKind.OK, reply.body, "", status)
    if status == 429:
        return of(ResponseKind.RATE_LIMITED, wait=wait_of(reply.headers, now))
    if status == 401:
        return of(ResponseKind.AUTH)
    if status == 403:
        return of(ResponseKind.FORBIDDEN)
    if status == 404:
        return of(ResponseKind.NOT_FOUND)
    if status >= 500:
        return of(ResponseKind.INDETERMINATE, wait=wait_of(reply.headers, now))
    return of(ResponseKind.INVALID)
