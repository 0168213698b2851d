"""What a GitHub response means, decided once (pure; GitHub's rate-limit documentation).

Transport errors and 5xx are *indeterminate* (the request may have happened); 403/429 or
a 200 whose errors say RATE_LIMITED or "secondary rate" are *rate limited*, and so is
the content-creation throttle GraphQL sends as a 200 UNPROCESSABLE "was submitted too
quickly" (``content_throttle``: nothing was created, GitHub names no wait); a query
GitHub stopped for its size or time is *too large*; 401 and scope errors are *auth*;
NOT_FOUND is *not found*; 400/422 and validation errors are *invalid*; a 200 with data
and errors is *partial*.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ralph._graphql_http import Reply

__all__ = ["Classified", "ResponseKind", "classify_response"]

_SECONDARY = re.compile(r"secondary rate|abuse detection", re.IGNORECASE)
_RATE_TYPES = {"RATE_LIMITED", "RATE_LIMIT"}
_AUTH_TYPES = {"FORBIDDEN", "INSUFFICIENT_SCOPES"}
#: GitHub's words for an internal error answered with 200 (octokit retries it as a 500).
_SERVER_HICCUP = "something went wrong while executing your query"
#: GitHub's dynamic content-creation limit as GraphQL words it (HTTP 200, UNPROCESSABLE).
_TOO_QUICKLY = re.compile(r"submitted too quickly", re.IGNORECASE)
#: GitHub stopped a query for the resources or the time it takes (GraphQL errors, or a
#: 502/504 whose body says it could not answer in time).
_TOO_LARGE_TYPES = {"RESOURCE_LIMITS_EXCEEDED"}
_TOO_LARGE = re.compile(
    r"resource limits for this query exceeded|timeout on validation of query"
    r"|couldn't respond to your request in time",
    re.IGNORECASE,
)
#: When a secondary limit names no wait (GitHub: "wait at least one minute").
FALLBACK_WAIT = 60.0


class ResponseKind(enum.Enum):
    OK = "ok"
    PARTIAL = "partial"
    RATE_LIMITED = "rate limited"
    AUTH = "auth"
    NOT_FOUND = "not found"
    INVALID = "invalid"
    INDETERMINATE = "indeterminate"
    #: GitHub stopped the query for its size or time: ask for less (a smaller page).
    TOO_LARGE = "too large"


@dataclass(frozen=True)
class Classified:
    kind: ResponseKind
    data: Any = None
    message: str = ""
    #: For RATE_LIMITED: seconds to wait, or None when GitHub named no time.
    wait: float | None = None
    #: For RATE_LIMITED: GitHub's content-creation throttle (the write did not happen).
    content_throttle: bool = False
    #: GitHub's errors as it sent them (each may name its ``path``: a batch's alias).
    errors: tuple[dict[str, Any], ...] = ()


def _header_number(headers: Mapping[str, str], name: str) -> float | None:
    value = headers.get(name, "").strip()
    try:
        return float(value) if value else None
    except ValueError:
        return None


def _limit_wait(headers: Mapping[str, str], now: float) -> float | None:
    """retry-after if given, else the primary reset (+1 s) when the points are gone."""
    retry_after = _header_number(headers, "retry-after")
    if retry_after is not None:
        return max(retry_after, 0.0)
    reset = _header_number(headers, "x-ratelimit-reset")
    if headers.get("x-ratelimit-remaining", "").strip() == "0" and reset is not None:
        return max(reset - now, 0.0) + 1.0
    return None


def _messages(body: Any) -> tuple[list[dict[str, Any]], str]:
    errors = body.get("errors") if isinstance(body, dict) else None
    if not isinstance(errors, list):
        message = body.get("message", "") if isinstance(body, dict) else ""
        return [], str(message)
    listed = [e for e in errors if isinstance(e, dict)]
    return listed, "; ".join(str(e.get("message", "")) for e in listed)


def classify_response(reply: Reply, now: float) -> Classified:
    body = reply.body
    errors, message = _messages(body)
    data = body.get("data") if isinstance(body, dict) else None
    types = {str(e.get("type", "")) for e in errors}
    status = reply.status
    if status == 401:
        return Classified(ResponseKind.AUTH, message=message or "bad credentials")
    if status in (403, 429):
        wait = _limit_wait(reply.headers, now)
        if wait is not None or _SECONDARY.search(message) or types & _RATE_TYPES:
            return Classified(ResponseKind.RATE_LIMITED, message=message, wait=wait)
        return Classified(ResponseKind.AUTH, message=message or "forbidden")
    if status >= 500:
        kind = ResponseKind.TOO_LARGE if _TOO_LARGE.search(message) else ResponseKind.INDETERMINATE
        return Classified(kind, message=message or f"HTTP {status}")
    if status == 404:
        return Classified(ResponseKind.NOT_FOUND, message=message or "not found")
    if status >= 400:
        return Classified(ResponseKind.INVALID, message=message or f"HTTP {status}")
    if not isinstance(body, dict):
        return Classified(ResponseKind.INDETERMINATE, message=f"HTTP {status} without a JSON body")
    if not errors:
        return Classified(ResponseKind.OK, data=data)
    if types & _RATE_TYPES or _SECONDARY.search(message):
        return Classified(
            ResponseKind.RATE_LIMITED, message=message, wait=_limit_wait(reply.headers, now)
        )
    if "UNPROCESSABLE" in types and _TOO_QUICKLY.search(message):
        return Classified(ResponseKind.RATE_LIMITED, message=message, content_throttle=True)
    if types & _TOO_LARGE_TYPES or _TOO_LARGE.search(message):
        return Classified(ResponseKind.TOO_LARGE, data=data, message=message)
    if _SERVER_HICCUP in message.lower():
        return Classified(ResponseKind.INDETERMINATE, message=message)
    listed = tuple(errors)
    if types and types <= {"NOT_FOUND"}:
        return Classified(ResponseKind.NOT_FOUND, data=data, message=message, errors=listed)
    if types & _AUTH_TYPES:
        return Classified(ResponseKind.AUTH, message=message)
    if data and any(value is not None for value in data.values()):
        return Classified(ResponseKind.PARTIAL, data=data, message=message, errors=listed)
    return Classified(ResponseKind.INVALID, data=data, message=message, errors=listed)
