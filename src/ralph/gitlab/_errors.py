"""What the GitLab client raises: a branch of :class:`ralph.errors.TrackerError`.

``GitLabAmbiguous`` is the one a writer must handle: a creating write (a POST) lost its
answer, so it may have happened. The client never resends it; the caller looks (an
issue with its title, a note with its text) and decides.
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
    "GitLabAmbiguous",
    "GitLabAuthError",
    "GitLabError",
    "GitLabInvalid",
    "GitLabNotFound",
    "GitLabRateLimited",
    "GitLabUnavailable",
]


class GitLabError(TrackerError):
    """GitLab's API refused a request or did not answer it."""

    #: The HTTP status (0: no answer) and GitLab's own words, when it gave them.
    status: int = 0
    reason: str = ""


class GitLabAuthError(GitLabError, ServiceCredentialsRefused):
    """The token is missing, wrong, expired or revoked (401), or may not do this (403)."""


class GitLabInvalid(GitLabError, ValueError):
    """GitLab refused the input (400, 409, 422): nothing happened."""


class GitLabNotFound(GitLabInvalid, ServiceNotFound):
    """A project, issue or note GitLab does not know, or the token cannot see (404)."""


class GitLabRateLimited(GitLabError, ServiceRateLimited):
    """Still rate limited (429) after every wait the client allows itself."""


class GitLabUnavailable(GitLabError, ServiceUnavailable):
    """No answer, or 5xx, after the retries a request is allowed."""


class GitLabAmbiguous(GitLabUnavailable):
    """A creating write got no clear answer (a dropped connection, a 5xx): it may have
    been applied. Not resent; ``method``, ``path`` and ``body`` say what to look for."""

    def __init__(self, message: str, method: str, path: str, body: Any) -> None:
        self.method = method
        self.path = path
        self.body = body
        super().__init__(message)
