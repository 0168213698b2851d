"""Pipeline tools: groups, position, convergence, work streams, picking work, advancing
children and parents, the dashboard (with the latest runs' outcomes). The algorithms are
the pure core's."""

from __future__ import annotations

import dataclasses
import time
from typing import Annotated, Any

from pydantic import Field

from ralph.dashboard import HealthConfig, build_dashboard, format_ascii, format_markdown
from ralph.mcp._context import ToolContext
from ralph.mcp._issue_shapes import brief
from ralph.mcp._runs import latest_runs, runs_text
from ralph.pipeline import detect_position, detect_stream_positions, detect_work_streams
from ralph.tracker import StateChange, dashboard_items, pipeline_state
from ralph.workflow import STATE_ORDER, Estimate, parse_state

__all__ = ["register_pipeline_tools"]

Number = Annotated[int, Field(description="Issue number")]
#: The runs the dashboard names: the newest, with what their agents are doing.
DASHBOARD_RUNS = 5


def _change(change: StateChange) -> dict[str, Any]:
    return {
        "number": change.number,
        "fromState": change.previous.value if change.previous else None,
        "toState": change.new.value,
    }


def register_pipeline_tools(tools: ToolContext) -> None:
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

    @tools.write("advance children")
    def advance_children(
        targetState: str,
        number: Annotated[int | None, Field(description="Parent issue")] = None,
        issues: list[int] | None = None,
    ) -> dict[str, Any]:
        """Move the parent's sub-issues (or the listed issues) that are earlier than
        ``targetState`` up to it."""
        result = tracker.advance_children(
            targetState, parent=number, issues=issues or (), actor=tools.actor
        )
        return {
            "advanced": [_change(c) for c in result.advanced],
            "skipped": [{"number": n, "reason": r} for n, r in result.skipped],
            "errors": [{"number": n, "error": e} for n, e in result.errors],
        }

    @tools.write("advance parent")
    def advance_parent(number: Number) -> dict[str, Any]:
        """Move the issue's parent to the lowest state among its children once that is
        a gate state."""
        result = tracker.advance_parent(number, actor=tools.actor)
        data: dict[str, Any] = {"advanced": result.advanced, "reason": result.reason}
        if result.change is not None:
            data["parent"] = _change(result.change)
        data["childStates"] = [{"number": n, "state": s} for n, s in result.child_states]
        return data

    @tools.read("build the pipeline dashboard")
    def pipeline_dashboard(
        format: Annotated[str, Field(description="json, markdown or ascii")] = "json",
        projectNumbers: Annotated[
            list[int] | None, Field(description="This server's board (the default)")
        ] = None,
        includeHealth: bool = True,
        stuckThresholdHours: Annotated[float, Field(gt=0)] = 48.0,
        wipLimits: Annotated[
            dict[str, int] | None, Field(description="Workflow State -> most issues in it")
        ] = None,
        doneWindowDays: Annotated[float, Field(gt=0)] = 7.0,
        archiveThresholdDays: Annotated[float, Field(gt=0)] = 14.0,
        issuesPerPhase: Annotated[int, Field(ge=1)] = 10,
    ) -> dict[str, Any]:
        """Issues per phase with health warnings (stuck, blocked, WIP over limit), and
        the latest runs with their outcome and what their agents are doing, as JSON,
        Markdown or text bars."""
        if format not in ("json", "markdown", "ascii"):
            raise ValueError(f"format {format!r} is not known; use json, markdown or ascii")
        number = tools.project.tracker.project_board().info().number
        others = sorted(set(projectNumbers or ()) - {number})
        if others:
            raise ValueError(
                f"this server serves project #{number}; leave projectNumbers out or name it"
            )
        limits = dict(tools.project.config.wip_limits)
        for state, limit in (wipLimits or {}).items():
            if limit < 0:
                raise ValueError(f"wipLimits: {state} {limit} is negative")
            limits[parse_state(state).value] = limit
        health = HealthConfig(
            stuck_threshold_hours=stuckThresholdHours,
            critical_stuck_hours=2 * stuckThresholdHours,
            wip_limits=limits,
            done_window_days=doneWindowDays,
            archive_threshold_days=archiveThresholdDays,
        )
        dashboard = build_dashboard(dashboard_items(tracker), now=time.time(), config=health)
        if not includeHealth:
            dashboard = dataclasses.replace(dashboard, warnings=())
        data = dashboard.to_dict()
        for phase in data["phases"]:
            phase["issues"] = phase["issues"][:issuesPerPhase]
        data["runs"] = latest_runs(tools.project.store, DASHBOARD_RUNS)
        lines = runs_text(data["runs"])
        if format == "markdown":
            runs = "\n".join(
                f"  - {line.strip()}" if line.startswith(" ") else f"- {line}" for line in lines
            )
            data["formatted"] = format_markdown(dashboard, issuesPerPhase) + (
                f"\n\n## Runs\n\n{runs}\n" if lines else ""
            )
        elif format == "ascii":
            runs = "\n".join(lines)
            data["formatted"] = format_ascii(dashboard) + (f"\n\nRuns\n{runs}\n" if lines else "")
        return data
