"""Pipeline algorithms: group detection, pipeline position with convergence and roster,
work streams, and the board's roots in the order a pass over it runs them. Pure: no I/O
(group detection reads issues through a function it is given)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.errors import DependencyCycle, IssueNotFound
    from ralph.pipeline._groups import (
        Fetch,
        FetchMany,
        GroupResult,
        IssueRelations,
        detect_group,
    )
    from ralph.pipeline._issues import IssueState
    from ralph.pipeline._need import RootNeed, root_need
    from ralph.pipeline._position import (
        BlockingIssue,
        Convergence,
        PipelinePosition,
        Recommendation,
        detect_position,
    )
    from ralph.pipeline._queue import BoardIssue, BoardQueue, QueuedRoot, QueueTier, order_roots
    from ralph.pipeline._roster import MAX_BUILDERS, SuggestedRoster, suggest_roster
    from ralph.pipeline._stage import REMAINING_PHASES, Stage
    from ralph.pipeline._streams import (
        FileOwnership,
        StreamPosition,
        WorkStream,
        WorkStreamResult,
        detect_stream_positions,
        detect_work_streams,
        stream_id,
    )
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "MAX_BUILDERS",
    "REMAINING_PHASES",
    "BlockingIssue",
    "BoardIssue",
    "BoardQueue",
    "Convergence",
    "DependencyCycle",
    "Fetch",
    "FetchMany",
    "FileOwnership",
    "GroupResult",
    "IssueNotFound",
    "IssueRelations",
    "IssueState",
    "PipelinePosition",
    "QueueTier",
    "QueuedRoot",
    "Recommendation",
    "RootNeed",
    "Stage",
    "StreamPosition",
    "SuggestedRoster",
    "WorkStream",
    "WorkStreamResult",
    "detect_group",
    "detect_position",
    "detect_stream_positions",
    "detect_work_streams",
    "order_roots",
    "root_need",
    "stream_id",
    "suggest_roster",
]
