"""The Jira tracker's parts: Ralph's values as a Jira project holds them
(``_mapping``), reading and checking the project (``_project``), and the
``JiraTracker`` over ``ralph.jira``'s client."""

from __future__ import annotations

from ralph.tracker.jira._mapping import (
    ESTIMATE_POINTS,
    PRIORITY_NAMES,
    EstimateField,
    StatusMap,
    comment_from,
    issue_from,
)
from ralph.tracker.jira._project import (
    DEFAULT_ESTIMATE_FIELD,
    JiraProject,
    check_project,
    read_project,
)
from ralph.tracker.jira._tracker import NO_ARCHIVE, NO_STATUS_UPDATES, JiraTracker

__all__ = [
    "DEFAULT_ESTIMATE_FIELD",
    "ESTIMATE_POINTS",
    "NO_ARCHIVE",
    "NO_STATUS_UPDATES",
    "PRIORITY_NAMES",
    "EstimateField",
    "JiraProject",
    "JiraTracker",
    "StatusMap",
    "check_project",
    "comment_from",
    "issue_from",
    "read_project",
]
