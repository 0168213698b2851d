"""What a Linear answer means, decided once (pure).

Linear's GraphQL errors carry ``extensions.code`` (``RATELIMITED``, ``INVALID_INPUT``,
``AUTHENTICATION_ERROR``, ``FORBIDDEN``...) and ``extensions.type`` (the same in
words: ``ratelimited``, ``invalid input``; Linear's SDK reads ``type``). The code is
read whatever the HTTP status, because Linear answers a spent budget with HTTP **400**
and ``RATELIMITED`` (``extensions.statusCode`` 429), not with a 429. Without a code the
status decides as Linear's SDK does (``parseLinearError``): 401 auth, 403 forbidden, 429
rate limited, other 4xx invalid, 5xx and a dropped connection *indeterminate* (the
request may have run).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ralph._graphql_http import Reply

__all__ = [
    "FALLBACK_WAIT",
    "Classified",
    "ResponseKind",
    "classify_response",
    "epoch_seconds",
    "reset_wait",
]

#: Linear's budgets are per hour.
HOUR = 3600.0
#: When a rate limit names no reset: a minute (the client doubles it on repeats).
FALLBACK_WAIT = 60.0

_RATE = {"RATELIMITED", "RATE_LIMITED", "RATELIMIT"}
_AUTH = {"AUTHENTICATION_ERROR", "AUTHENTICATIONERROR"}
_FORBIDDEN = {"FORBIDDEN", "FEATURE_NOT_ACCESSIBLE"}
#: Linear's own failures while running a request: it may have applied part of a write.
_TRANSIENT = {"INTERNAL_ERROR", "INTERNAL_SERVER_ERROR", "LOCK_TIMEOUT", "NETWORK_ERROR"}


class ResponseKind(enum.Enum):
    OK = "ok"
    #: A budget is spent; ``wait`` says until when (every request of the key waits).
    RATE_LIMITED = "rate limited"
    #: The key is missing, wrong or revoked.
    AUTH = "auth"
    #: The key is good but may not do this (a team it cannot see, a plan's feature).
    FORBIDDEN = "forbidden"
    #: Linear refused the input (unknown id, a value off the scale, a bad query): the
    #: request did not happen and resending it changes nothing.
    INVALID = "invalid"
    #: No answer, a 5xx or Linear's internal error: the request may have happened.
    INDETERMINATE = "indeterminate"


@dataclass(frozen=True)
class Classified:
    kind: ResponseKind
    data: Any = None
    message: str = ""
    #: ``extensions.code`` of the first error ("" when there was none).
    code: str = ""
    #: For RATE_LIMITED: seconds until the spent budget has room again, None if unnamed.
    wait: float | None = None
    errors: tuple[dict[str, Any], ...] = ()

    @property
    def not_found(self) -> bool:
        """Linear refuses an unknown id as INVALID_INPUT "Entity not found"."""
        return self.kind is ResponseKind.INVALID and "not found" in self.message.lower()


def _number(headers: Mapping[str, str], name: str) -> float | None:
    value = headers.get(name, "").strip()
    try:
        return float(value) if value else None
    except ValueError:
        return None


def epoch_seconds(value: float) -> float:
    """Linear's reset headers are epoch milliseconds; seconds are taken as they are."""
    return value / 1000.0 if value > 1e11 else value


def reset_wait(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds until the spent budget has room for the request again: ``retry-after``
    if given; else, for each budget short of what the request needs (one request; the
    request's ``X-Complexity`` points), the time its constant refill (``limit`` an hour,
    Linear's leaky bucket) takes to make up the difference, never past its reset. None
    when the headers say nothing."""
    retry_after = _number(headers, "retry-after")
    if retry_after is not None:
        return max(retry_after, 0.0)
    waits = []
    for budget, need in (("requests", 1.0), ("complexity", _number(headers, "x-complexity"))):
        limit = _number(headers, f"x-ratelimit-{budget}-limit")
        remaining = _number(headers, f"x-ratelimit-{budget}-remaining")
        reset = _number(headers, f"x-ratelimit-{budget}-reset")
        until_reset = max(epoch_seconds(reset) - now, 0.0) if reset is not None else None
        if remaining is None or remaining >= (need or 1.0):
            continue
        wait = until_reset
        if limit:
            refill = ((need or 1.0) - remaining) * HOUR / limit
            wait = refill if until_reset is None else min(refill, until_reset)
        if wait is not None:
            waits.append(wait)
    return max(waits) if waits else None


def _errors(body: Any) -> list[dict[str, Any]]:
    errors = body.get("errors") if isinstance(body, dict) else None
    return [e for e in errors if isinstance(e, dict)] if isinstance(errors, list) else []


def _code(error: Mapping[str, Any]) -> str:
    extensions = error.get("extensions")
    if not isinstance(extensions, dict):
        return ""
    code = extensions.get("code") or extensions.get("type") or ""
    return str(code).upper().replace(" ", "_")


def _message(error: Mapping[str, Any]) -> str:
    extensions = error.get("extensions")
    if isinstance(extensions, dict) and extensions.get("userPresentableMessage"):
        return f"{error.get('message', '')} ({extensions['userPresentableMessage']})"
    return str(error.get("message", ""))


def classify_response(reply: Reply, now: float) -> Classified:
    body = reply.body
    errors = _errors(body)
    data = body.get("data") if isinstance(body, dict) else None
    codes = {_code(e) for e in errors} - {""}
    first = _code(errors[0]) if errors else ""
    message = "; ".join(_message(e) for e in errors)
    status = reply.status
    listed = tuple(errors)

    def of(kind: ResponseKind, **more: Any) -> Classified:
        return Classified(kind, message=message, code=first, errors=listed, **more)

    if codes & _RATE or status == 429:
        return of(ResponseKind.RATE_LIMITED, wait=reset_wait(reply.headers, now))
    if codes & _AUTH or status == 401:
        return of(ResponseKind.AUTH)
    if codes & _FORBIDDEN or status == 403:
        return of(ResponseKind.FORBIDDEN)
    if codes & _TRANSIENT or status >= 500:
        return Classified(
            ResponseKind.INDETERMINATE,
            message=message or f"HTTP {status}",
            code=first,
            errors=listed,
        )
    if errors or status >= 400:
        return Classified(
            ResponseKind.INVALID,
            data=data,
            message=message or f"HTTP {status}",
            code=first,
            errors=listed,
        )
    if not isinstance(body, dict) or not isinstance(data, dict):
        return Classified(ResponseKind.INDETERMINATE, message=f"HTTP {status} without data")
    return Classified(ResponseKind.OK, data=data)
