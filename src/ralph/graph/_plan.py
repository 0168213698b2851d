"""From a seed issue to a task graph: group, position, streams and graph in one step."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ralph.graph._build import build_task_graph
from ralph.graph._chain import ReviewMode
from ralph.graph._model import TaskGraph
from ralph.pipeline import (
    Fetch,
    FetchMany,
    FileOwnership,
    GroupResult,
    IssueState,
    PipelinePosition,
    Stage,
    WorkStreamResult,
    detect_group,
    detect_position,
    detect_work_streams,
    suggest_roster,
)

__all__ = ["MIN_GROUP_FOR_STREAMS", "PipelinePlan", "plan_pipeline"]

#: Groups of two or fewer are never split into streams (the original's rule).
MIN_GROUP_FOR_STREAMS = 3
#: Streams are only known from research documents, so only phases after research use them.
_STREAM_STAGES = frozenset({Stage.PLAN})


@dataclass(frozen=True, kw_only=True)
class PipelinePlan:
    group: GroupResult
    position: PipelinePosition
    streams: WorkStreamResult | None
    graph: TaskGraph

    def to_dict(self) -> dict[str, Any]:
        position = self.position.to_dict()
        if self.streams is not None:
            roster = suggest_roster(self.position, self.streams)
            position["suggestedRoster"] = roster.to_dict()
        return {
            "group": self.group.to_dict(),
            "position": position,
            "streams": self.streams.to_dict() if self.streams is not None else None,
            "graph": self.graph.to_dict(),
        }


def plan_pipeline(
    seed: int,
    fetch: Fetch,
    states: Mapping[int, IssueState],
    *,
    review_mode: ReviewMode | str,
    files: Mapping[int, Sequence[str]] | None = None,
    review_code: bool = False,
    fetch_many: FetchMany | None = None,
) -> PipelinePlan:
    """Detect the seed's group, its position from ``states``, its work streams (for a
    group of three or more whose research is done and whose members' files are known),
    and build the task graph.

    ``states`` must hold every member of the group; ``files`` maps an issue to the paths
    its research document says it will modify; ``review_code`` adds a code review of
    each pull request before its merge; ``fetch_many`` reads the group's issues
    together (``detect_group``).
    """
    group = detect_group(seed, fetch, fetch_many)
    members = [states.get(n, IssueState(n)) for n in group.issues]
    position = detect_position(members, is_group=group.is_group, group_primary=group.primary)
    streams = None
    epic = None
    known = files or {}
    if (
        len(group.issues) >= MIN_GROUP_FOR_STREAMS
        and position.phase in _STREAM_STAGES
        and all(known.get(n) for n in group.issues)
    ):
        relations = {n: fetch(n) for n in group.issues}
        streams = detect_work_streams(
            [
                FileOwnership(n, tuple(known[n]), r.blocked_by if (r := relations[n]) else ())
                for n in group.issues
            ]
        )
        primary = relations[group.primary]
        epic = primary.parent if primary is not None else None
    graph = build_task_graph(
        position,
        group,
        review_mode=review_mode,
        streams=streams,
        epic=epic,
        review_code=review_code,
    )
    return PipelinePlan(group=group, position=position, streams=streams, graph=graph)
