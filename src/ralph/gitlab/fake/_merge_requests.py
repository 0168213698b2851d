"""The fake GitLab's merge requests, pipelines, approvals and discussions (owned by the
merge-request side; until it lands, none are answered)."""

from __future__ import annotations

from ralph.gitlab.fake._routes import Routes

__all__ = ["register"]


def register(routes: Routes) -> None:
    """Add the merge-request routes to ``routes``."""
