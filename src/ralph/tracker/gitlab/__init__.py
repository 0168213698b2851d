"""The GitLab tracker's parts: Ralph's values as labels of a GitLab project
(``_mapping``), setting up and checking the project (``_project``), its issues and notes
written safely through ``ralph.gitlab``'s client (``_writes``), and the
``GitLabTracker`` over them; its merge requests as a code host (``GitLabCodeHost``:
``_code_host``, ``_mr_read``, ``_mr_review``)."""

from __future__ import annotations

from ralph.tracker.gitlab._code_host import GitLabCodeHost
from ralph.tracker.gitlab._mapping import (
    ARCHIVED,
    CLOSED_PREFIX,
    ESTIMATE_PREFIX,
    PARENT_PREFIX,
    PRIORITY_PREFIX,
    STATE_PREFIX,
    comment_from,
    issue_from,
)
from ralph.tracker.gitlab._project import (
    ProjectSetup,
    check_project,
    ralph_labels,
    read_project,
    set_up_project,
)
from ralph.tracker.gitlab._tracker import NO_BLOCKING, NO_STATUS_UPDATES, GitLabTracker

__all__ = [
    "ARCHIVED",
    "CLOSED_PREFIX",
    "ESTIMATE_PREFIX",
    "NO_BLOCKING",
    "NO_STATUS_UPDATES",
    "PARENT_PREFIX",
    "PRIORITY_PREFIX",
    "STATE_PREFIX",
    "GitLabCodeHost",
    "GitLabTracker",
    "ProjectSetup",
    "check_project",
    "comment_from",
    "issue_from",
    "ralph_labels",
    "read_project",
    "set_up_project",
]
