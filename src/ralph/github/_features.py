"""Which of GitHub's issue relations a GitHub has, found by asking its schema.

github.com has sub-issues and issue dependencies. GitHub Enterprise Server has
sub-issues from 3.16, and dependencies only where GitHub documents them for it; on a
server without them every read naming them would fail validation, so Ralph reads and
writes issues without them and says once what it does instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ralph.github._client import GitHubClient
from ralph.github.queries import ISSUE_FEATURES

__all__ = [
    "ALL_ISSUE_FEATURES",
    "NO_DEPENDENCIES",
    "NO_SUB_ISSUES",
    "IssueFeatures",
    "features_of",
    "issue_features",
]

NO_DEPENDENCIES = (
    "this GitHub has no issue dependencies (blocked by): Ralph groups and orders work by "
    "sub-issues only, and refuses to record a dependency"
)
NO_SUB_ISSUES = (
    "this GitHub has no sub-issues (GitHub Enterprise Server before 3.16): Ralph works "
    "each issue on its own and refuses to split one into sub-issues"
)


@dataclass(frozen=True)
class IssueFeatures:
    """What this GitHub's issues have beside their own fields (all of it: github.com)."""

    dependencies: bool = True
    sub_issues: bool = True

    def notes(self) -> tuple[str, ...]:
        """What Ralph does instead of each missing feature, a line each."""
        return (() if self.dependencies else (NO_DEPENDENCIES,)) + (
            () if self.sub_issues else (NO_SUB_ISSUES,)
        )


#: github.com's: every feature.
ALL_ISSUE_FEATURES = IssueFeatures()


def issue_features(client: GitHubClient) -> IssueFeatures:
    """The features this GitHub's schema has (one introspection query)."""
    return features_of(client.query(ISSUE_FEATURES).get("__type"))


def features_of(issue_type: Any) -> IssueFeatures:
    """The features the schema's ``Issue`` type (``__type``'s answer) shows."""
    names = {field["name"] for field in ((issue_type or {}).get("fields") or [])}
    return IssueFeatures(
        dependencies={"blockedBy", "blocking"} <= names,
        sub_issues={"parent", "subIssues"} <= names,
    )
