"""An in-memory GitLab for tests and demos: it checks every request against a copy of
GitLab's published OpenAPI document it is pointed at (``RALPH_GITLAB_OPENAPI``), keeps
users and tokens, projects, labels (scoped ones exclusive on Premium), issues, notes and
issue links, refuses what GitLab refuses, counts each user's requests per minute
(``RateLimit-*``, 429), and can be scripted to fail. Other parts register their routes
on ``FakeGitLab.routes`` (merge requests: ``_merge_requests``)."""

from __future__ import annotations

from ralph.gitlab.fake._fake import (
    GITLAB_OPENAPI,
    FakeGitLab,
    Request,
    ScriptedFault,
    gitlab_document,
)
from ralph.gitlab.fake._routes import Call, Fault, Routes, paginate
from ralph.gitlab.fake._state import Issue, IssueLink, Label, Note, Project, State, User, iso

__all__ = [
    "GITLAB_OPENAPI",
    "Call",
    "FakeGitLab",
    "Fault",
    "Issue",
    "IssueLink",
    "Label",
    "Note",
    "Project",
    "Request",
    "Routes",
    "ScriptedFault",
    "State",
    "User",
    "gitlab_document",
    "iso",
    "paginate",
]
