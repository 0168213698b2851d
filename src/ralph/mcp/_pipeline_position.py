"""Pipeline tools that read where work stands: an issue's group, its pipeline
position and convergence, work streams and their positions, and the next actionable
issue. The algorithms are the pure core's."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ralph.mcp._context import ToolContext
from ralph.mcp._issue_shapes import Number, brief
from ralph.pipeline import detect_position, detect_stream_positions, detect_work_streams
from ralph.tracker import pipeline_state
from ralph.workflow import STATE_ORDER, Estimate, parse_state

__all__ = ["register_pipeline_position_tools"]


def register_pipeline_position_tools(tools: ToolContext) -> None:
    tracker = tools.project.tracker

    @tools.read("detect group")
    def detect_group(number: Number) -> dict[str, Any]:
        """The issues implemented together with this one (its parent's sub-issues and
        their blockers), in implementation order."""
        return tools.group_dict(number)

    @tools.read("detect pipeline position")
    def detect_pipeline_position(number: Number) -> dict[str, Any]:
        """Which phase the issue (or its group) is in, with convergence and the
        suggested roster."""
        group = tools.group(number)
        states = [pipeline_state(tracker.get_issue(n)) for n in group.issues]
        position = detect_position(states, is_group=group.is_group, group_primary=group.primary)
        return position.to_dict()

    @tools.read("check convergence")
    def check_convergence(number: Number, targetState: str) -> dict[str, Any]:
        """Whether every issue of the group has reached ``targetState``."""
        target = parse_state(targetState)
        group = tools.group(number)
        members = [tracker.get_issue(n) for n in group.issues]
        blocking = []
        for issue in members:
            if issue.workflow_state == target:
                continue
            current = issue.workflow_state
            distance = (
                STATE_ORDER.index(target) - STATE_ORDER.index(current)
                if current in STATE_ORDER and target in STATE_ORDER
                else -1
            )
            blocking.append(
                {
                    "number": issue.number,
                    "title": issue.title,
                    "currentState": current.value if current else "unknown",
                    "distanceToTarget": distance,
                }
            )
        escalate = any(b["currentState"] == "Human Needed" for b in blocking)
        return {
            "converged": not blocking,
            "targetState": target.value,
            "total": len(members),
            "ready": len(members) - len(blocking),
            "blocking": blocking,
            "recommendation": "proceed" if not blocking else "escalate" if escalate else "wait",
        }

    @tools.read("detect work streams", name="detect_work_streams")
    def detect_work_streams_tool(
        issues: Annotated[
            list[dict[str, Any]], Field(description="[{number, files: [...], blockedBy: [...]}]")
        ],
    ) -> dict[str, Any]:
        """Independent work streams: issues that share files or blockers go together."""
        return detect_work_streams(issues).to_dict()

    @tools.read("detect stream positions", name="detect_stream_positions")
    def detect_stream_positions_tool(
        issues: Annotated[list[dict[str, Any]], Field(description="[{number, files, blockedBy}]")],
        issueStates: Annotated[
            list[dict[str, Any]],
            Field(description="[{number, title, workflowState, estimate, subIssueCount}]"),
        ],
    ) -> dict[str, Any]:
        """The streams of a group and the pipeline position of each."""
        streams = detect_work_streams(issues)
        positions = detect_stream_positions(streams.streams, issueStates)
        return {
            "streams": [p.to_dict() for p in positions],
            "totalStreams": len(positions),
            "totalIssues": streams.total_issues,
            "rationale": streams.rationale,
        }

    @tools.read("pick actionable issue")
    def pick_actionable_issue(
        workflowState: str, maxEstimate: Annotated[str, Field(description="XS..XL")] = "S"
    ) -> dict[str, Any]:
        """The best open issue in ``workflowState`` that is not blocked, locked or too
        big: highest priority, then oldest."""
        state = parse_state(workflowState)
        sizes = list(Estimate)  # XS < S < M < L < XL
        allowed = sizes[: sizes.index(Estimate(maxEstimate)) + 1]
        found = tracker.actionable(states=[state], estimates=allowed)
        if not found:
            return {"found": False, "issue": None, "alternatives": 0}
        issue = found[0]
        group = tools.group_dict(issue.number)
        return {
            "found": True,
            "issue": {
                **brief(issue),
                "description": issue.body,
                "isLocked": False,
                "blockedBy": list(issue.blocked_by),
            },
            "group": group if group["isGroup"] else None,
            "alternatives": len(found) - 1,
        }
