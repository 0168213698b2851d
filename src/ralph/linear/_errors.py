"""What the Linear client raises: a branch of :class:`ralph.errors.TrackerError`.

``LinearAmbiguous`` is the one a writer must handle: the mutation's answer was lost, so
it may have happened. The client never resends it; the caller looks (an issue created
with its own ``id``, a comment's header) and decides.
"""

from __future__ import annotations

from typing import Any

from ralph.errors import (
    ServiceCredentialsRefused,
    ServiceNotFound,
    ServiceRateLimited,
    ServiceUnavailable,
    TrackerError,
)

__all__ = [
    "LinearAmbiguous",
    "LinearAuthError",
    "LinearError",
    "LinearInvalid",
    "LinearNotFound",
    "LinearRateLimited",
    "LinearUnavailable",
]


class LinearError(TrackerError):
    """Linear's API refused a request or did not answer it."""

    #: Linear's own words and ``extensions.code``, when it gave them.
    reason: str = ""
    code: str = ""


class LinearAuthError(LinearError, ServiceCredentialsRefused):
    """The API key is missing, wrong or revoked, or may not do this (FORBIDDEN)."""


class LinearInvalid(LinearError, ValueError):
    """Linear refused the input (INVALID_INPUT, a validation error): nothing happened."""


class LinearNotFound(LinearInvalid, ServiceNotFound):
    """An id or identifier Linear does not know ("Entity not found")."""


class LinearRateLimited(LinearError, ServiceRateLimited):
    """Still rate limited after every wait the client allows itself."""


class LinearUnavailable(LinearError, ServiceUnavailable):
    """No answer, or 5xx, after the retries a read is allowed."""


class LinearAmbiguous(LinearUnavailable):
    """A mutation got no clear answer (a dropped connection, a 5xx): it may have been
    applied. Not resent; ``operation`` and ``variables`` say what to look for."""

    def __init__(self, message: str, operation: str, variables: dict[str, Any]) -> None:
        self.operation = operation
        self.variables = variables
        super().__init__(message)
