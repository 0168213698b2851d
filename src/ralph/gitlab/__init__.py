"""GitLab's REST API (v4), spoken carefully: one transport boundary (HTTPS, or the
in-memory :mod:`ralph.gitlab.fake`), pacing by the ``RateLimit-*`` headers GitLab
reports, 429s waited out, bounded retries of what may be repeated, and no blind resend
of a creating write (``GitLabAmbiguous``: the caller looks first)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.gitlab._classify import Classified, ResponseKind, classify, error_message
    from ralph.gitlab._client import (
        API_ROOT,
        DEFAULT_URL,
        MAX_PER_PAGE,
        TOKEN_VARIABLES,
        GitLabClient,
        https_transport,
        project_id,
        token_from_env,
    )
    from ralph.gitlab._errors import (
        GitLabAmbiguous,
        GitLabAuthError,
        GitLabError,
        GitLabInvalid,
        GitLabNotFound,
        GitLabRateLimited,
        GitLabUnavailable,
    )
    from ralph.gitlab._pacer import GitLabPacer, GitLabPacingPolicy, Window, spacing
else:
    # Loaded on first use (ralph._lazy), from the imports above.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "API_ROOT",
    "DEFAULT_URL",
    "MAX_PER_PAGE",
    "TOKEN_VARIABLES",
    "Classified",
    "GitLabAmbiguous",
    "GitLabAuthError",
    "GitLabClient",
    "GitLabError",
    "GitLabInvalid",
    "GitLabNotFound",
    "GitLabPacer",
    "GitLabPacingPolicy",
    "GitLabRateLimited",
    "GitLabUnavailable",
    "ResponseKind",
    "Window",
    "classify",
    "error_message",
    "https_transport",
    "project_id",
    "spacing",
    "token_from_env",
]
