"""The pipeline dashboard tool: issues per phase with health warnings, and the latest
runs' outcomes, as JSON, Markdown or text bars."""

from __future__ import annotations

import dataclasses
import time
from typing import Annotated, Any

from pydantic import Field

from ralph.dashboard import HealthConfig, build_dashboard, format_ascii, format_markdown
from ralph.mcp._context import ToolContext
from ralph.mcp._runs import latest_runs, runs_text
from ralph.tracker import dashboard_items
from ralph.workflow import parse_state

__all__ = ["register_pipeline_dashboard_tools"]

#: The runs the dashboard names: the newest, with what their agents are doing.
DASHBOARD_RUNS = 5


def register_pipeline_dashboard_tools(tools: ToolContext) -> None:
    tracker = tools.project.tracker

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
        if projectNumbers:  # only then the board: a Linear team has none to name
            number = tracker.project_board().info().number
            others = sorted(set(projectNumbers) - {number})
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
