"""What a GitLab answer means, decided once (pure).

GitLab answers errors with a status and a JSON body: ``{"message": "404 Project Not
Found"}``, ``{"message": {"title": ["can't be blank"]}}`` for a validation error, or
Grape's ``{"error": "title is missing"}`` for a bad parameter. A spent rate limit is a
429 with ``Retry-After`` (seconds) and the ``RateLimit-*`` headers; GitLab refuses it
before running anything, so any request may be sent again after the wait. A 5xx or a
dropped connection is *indeterminate*: the request may have run.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ralph._rest_http import Reply

__all__ = ["FALLBACK_WAIT", "Classified", "ResponseKind", "classify", "error_message", "retry_wait"]

#: When a 429 names no wait: GitLab's windows are a minute.
FALLBACK_WAIT = 60.0


class ResponseKind(enum.Enum):
    OK = "ok"
    RATE_LIMITED = "rate limited"
    AUTH = "auth"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not found"
    #: 400, 409, 422...: refused, nothing happened; resending changes nothing.
    INVALID = "invalid"
    #: No answer or a 5xx: the request may have happened.
    INDETERMINATE = "indeterminate"


@dataclass(frozen=True)
class Classified:
    kind: ResponseKind
    status: int = 0
    body: Any = None
    headers: Mapping[str, str] | None = None
    message: str = ""
    #: For RATE_LIMITED: seconds to wait, None when the answer does not say.
    wait: float | None = None


def error_message(body: Any) -> str:
    """GitLab's words in an error body, on one line."""
    if isinstance(body, dict):
        for key in ("message", "error", "error_description"):
            value = body.get(key)
            if isinstance(value, dict):
                return "; ".join(
                    f"{field} {' '.join(map(str, v)) if isinstance(v, list) else v}"
                    for field, v in value.items()
                )
            if isinstance(value, list):
                return "; ".join(map(str, value))
            if value:
                return str(value)
    if isinstance(body, str):
        return body.strip()
    return ""


def retry_wait(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds a 429 asks for: ``Retry-After``, else until ``RateLimit-Reset`` (epoch
    seconds)."""
    for name in ("retry-after",):
        value = headers.get(name, "").strip()
        if value:
            try:
                return max(float(value), 0.0)
            except ValueError:
                pass
    reset = headers.get("ratelimit-reset", "").strip()
    if reset:
        try:
            return max(float(reset) - now, 0.0)
        except ValueError:
            return None
    return None


def classify(reply: Reply, now: float) -> Classified:
    status = reply.status
    message = error_message(reply.body) or f"HTTP {status}"

    def of(kind: ResponseKind, **more: Any) -> Classified:
        return Classified(kind, status, reply.body, reply.headers, message, **more)

    if 200 <= status < 300:
        return Classified(ResponseKind.OK, status, reply.body, reply.headers)
    if status == 429:
        return of(ResponseKind.RATE_LIMITED, wait=retry_wait(reply.headers, now))
    if status == 401:
        return of(ResponseKind.AUTH)
    if status == 403:
        return of(ResponseKind.FORBIDDEN)
    if status == 404:
        return of(ResponseKind.NOT_FOUND)
    if status >= 500 or status < 200:
        return of(ResponseKind.INDETERMINATE)
    return of(ResponseKind.INVALID)
