"""What the Jira client raises: a branch of :class:`ralph.errors.TrackerError`, each
deriving from the shared service bases (``ServiceUnavailable``...) that exit codes and
the web map.

``JiraAmbiguous`` is the one a writer must handle: a write's answer was lost, so it may
have happened. The client never resends it; the caller looks (an issue carrying its
marker label, a comment with its text) and decides.
"""

from __future__ import annotations

from ralph.errors import (
    ServiceCredentialsRefused,
    ServiceNotFound,
    ServiceRateLimited,
    ServiceUnavailable,
    TrackerError,
)

__all__ = [
    "JiraAmbiguous",
    "JiraAuthError",
    "JiraError",
    "JiraInvalid",
    "JiraNotFound",
    "JiraRateLimited",
    "JiraUnavailable",
]


class JiraError(TrackerError):
    """Jira's REST API refused a request or did not answer it."""

    #: Jira's own words (``errorMessages`` and ``errors``) and the HTTP status.
    reason: str = ""
    status: int = 0


class JiraAuthError(JiraError, ServiceCredentialsRefused):
    """The email and API token are refused (401), or may not do this (403)."""


class JiraInvalid(JiraError, ValueError):
    """Jira refused the input (400, 409...): nothing happened."""


class JiraNotFound(JiraInvalid, ServiceNotFound):
    """A key or id Jira does not know, or one the account may not see (404)."""


class JiraRateLimited(JiraError, ServiceRateLimited):
    """Still rate limited (429) after every wait the client allows itself."""


class JiraUnavailable(JiraError, ServiceUnavailable):
    """No answer, or 5xx, after the retries a read is allowed."""


class JiraAmbiguous(JiraUnavailable):
    """A write got no clear answer (a dropped connection, a 5xx): it may have been
    applied. Not resent; ``method`` and ``path`` say what it was."""

    def __init__(self, message: str, method: str, path: str) -> None:
        self.method = method
        self.path = path
        super().__init__(message)
