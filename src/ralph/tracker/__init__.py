"""Issue trackers and code hosts: the interfaces Ralph's memory lives behind. A
:class:`Tracker` holds the issues (a local SQL backend, on ``memory://`` for tests, and a
GitHub Issues + Projects V2 one); the workflow rules (``set_state``, gates, picking work) are
implemented once, in it. A :class:`CodeHost` holds the pull requests (a local git, a
GitHub and an in-memory backend) and closes their issues on the tracker when they merge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.github import closing_references
    from ralph.tracker._board import (
        dashboard_items,
        escalation_of,
        escalation_reason,
        pipeline_state,
    )
    from ralph.tracker._board_fields import FIELDS
    from ralph.tracker._code_host import CodeHost
    from ralph.tracker._fields import check_date, check_labels
    from ralph.tracker._model import (
        CloseReason,
        Comment,
        Issue,
        IssueOrder,
        IssueQuery,
        IssueStatus,
        MergeStrategy,
        NewIssue,
        PullRequest,
        PullRequestState,
        StateChange,
        StatusUpdate,
        iso,
    )
    from ralph.tracker._project_board import (
        PROTECTED_FIELDS,
        BoardItem,
        Collaborator,
        FieldOption,
        ItemType,
        Membership,
        ProjectBoard,
        ProjectField,
        ProjectInfo,
        ProjectView,
    )
    from ralph.tracker._reviews import (
        CheckConclusion,
        CheckRun,
        CheckStatus,
        MergeSettings,
        MergeState,
        Review,
        ReviewComment,
        ReviewDecision,
        ReviewEvent,
        ReviewState,
        ReviewThread,
        ThreadComment,
    )
    from ralph.tracker._rules import UNKNOWN_STATE, AdvanceResult, ParentAdvance
    from ralph.tracker._tracker import Tracker
    from ralph.tracker.github import (
        NO_STATUS_UPDATES,
        BoardSetup,
        Check,
        GitHubCodeHost,
        GitHubTracker,
        check_board,
        set_up_board,
    )
    from ralph.tracker.local import LOCAL_TRACKER_MIGRATIONS, LocalCodeHost, LocalTracker
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "FIELDS",
    "LOCAL_TRACKER_MIGRATIONS",
    "NO_STATUS_UPDATES",
    "PROTECTED_FIELDS",
    "UNKNOWN_STATE",
    "AdvanceResult",
    "BoardItem",
    "BoardSetup",
    "Check",
    "CheckConclusion",
    "CheckRun",
    "CheckStatus",
    "CloseReason",
    "CodeHost",
    "Collaborator",
    "Comment",
    "FieldOption",
    "GitHubCodeHost",
    "GitHubTracker",
    "Issue",
    "IssueOrder",
    "IssueQuery",
    "IssueStatus",
    "ItemType",
    "LocalCodeHost",
    "LocalTracker",
    "Membership",
    "MergeSettings",
    "MergeState",
    "MergeStrategy",
    "NewIssue",
    "ParentAdvance",
    "ProjectBoard",
    "ProjectField",
    "ProjectInfo",
    "ProjectView",
    "PullRequest",
    "PullRequestState",
    "Review",
    "ReviewComment",
    "ReviewDecision",
    "ReviewEvent",
    "ReviewState",
    "ReviewThread",
    "StateChange",
    "StatusUpdate",
    "ThreadComment",
    "Tracker",
    "check_board",
    "check_date",
    "check_labels",
    "closing_references",
    "dashboard_items",
    "escalation_of",
    "escalation_reason",
    "iso",
    "pipeline_state",
    "set_up_board",
]
