"""Rich renderings of pipeline results, for people. Machines use ``--json``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from ralph.graph import PipelinePlan, TaskGraph
    from ralph.pipeline import (
        GroupResult,
        IssueState,
        PipelinePosition,
        SuggestedRoster,
    )
    from ralph.pipeline import (
        WorkStreamResult as Streams,
    )


__all__ = ["render_graph", "render_group", "render_plan", "render_position", "render_streams"]

_PHASE_STYLE = {
    "SPLIT": "magenta",
    "TRIAGE": "white",
    "RESEARCH": "purple",
    "PLAN": "blue",
    "REVIEW": "blue",
    "HUMAN_GATE": "yellow",
    "IMPLEMENT": "dark_orange",
    "COMPLETE": "green",
    "TERMINAL": "bright_black",
}


def _issues_table(issues: Sequence[IssueState]) -> Table:
    table = Table(title="Issues", title_justify="left", expand=False)
    table.add_column("#", justify="right")
    table.add_column("Title")
    table.add_column("Workflow state")
    table.add_column("Estimate")
    table.add_column("Sub-issues", justify="right")
    for issue in issues:
        table.add_row(
            str(issue.number),
            issue.title,
            issue.workflow_state or "—",
            issue.estimate or "—",
            str(issue.sub_issue_count),
        )
    return table


def _roster_line(roster: SuggestedRoster) -> str:
    return ", ".join(f"{role} {count}" for role, count in roster.to_dict().items())


def render_position(
    position: PipelinePosition, roster: SuggestedRoster | None = None
) -> RenderableType:
    phase = position.phase.value
    convergence = position.convergence
    lines = Text()
    lines.append("Phase: ", style="bold")
    lines.append(phase, style=f"bold {_PHASE_STYLE[phase]}")
    lines.append(f"\nReason: {position.reason}")
    remaining = " → ".join(position.remaining_phases) or "nothing (waiting or finished)"
    lines.append(f"\nRemaining: {remaining}")
    scope = f"group, primary GH-{position.group_primary}" if position.is_group else "single issue"
    lines.append(f"\nScope: {scope}")
    status = "met" if convergence.met else "not met"
    required = "required" if convergence.required else "not required"
    lines.append(f"\nConvergence: {status} ({required}), recommendation ")
    lines.append(convergence.recommendation.value, style="bold")
    if convergence.blocking:
        waiting = ", ".join(f"#{b.number} ({b.state})" for b in convergence.blocking)
        lines.append(f"\n  waiting on: {waiting}")
    lines.append(f"\nSuggested roster: {_roster_line(roster or position.suggested_roster)}")
    panel = Panel(lines, title="Pipeline position", title_align="left", expand=False)
    return Group(panel, _issues_table(position.issues))


def render_streams(result: Streams) -> RenderableType:
    table = Table(title="Work streams", title_justify="left", expand=False)
    table.add_column("Stream")
    table.add_column("Issues")
    table.add_column("Primary", justify="right")
    table.add_column("Shared files")
    for stream in result.streams:
        table.add_row(
            stream.id,
            ", ".join(f"#{n}" for n in stream.issues),
            f"#{stream.primary_issue}",
            "\n".join(stream.shared_files) or "—",
        )
    return Group(table, Text(result.rationale))


def render_graph(graph: TaskGraph) -> RenderableType:
    """Tasks numbered T-1, T-2 ... in creation order, as the original's documents draw them;
    keys are in the ``--json`` output."""
    label = {task.key: f"T-{n}" for n, task in enumerate(graph, start=1)}
    table = Table(title=f"Task graph ({len(graph)} tasks)", title_justify="left", expand=False)
    table.add_column("Task")
    table.add_column("Subject")
    table.add_column("Role")
    table.add_column("Waits for")
    for task in graph:
        waits = ", ".join(label[d] for d in task.deps) or "—"
        table.add_row(label[task.key], task.subject, task.role.value, waits)
    if not len(graph):
        return Group(table, Text("Nothing left to do for these issues."))
    return table


def render_group(group: GroupResult) -> RenderableType:
    order = " → ".join(f"#{n}" for n in group.issues)
    kind = "group" if group.is_group else "single issue"
    text = Text()
    text.append(f"{kind}, primary #{group.primary}\n", style="bold")
    text.append(f"Implementation order: {order}")
    return Panel(text, title="Group", title_align="left", expand=False)


def render_plan(plan: PipelinePlan, roster: SuggestedRoster) -> RenderableType:
    parts: list[RenderableType] = [
        render_group(plan.group),
        render_position(plan.position, roster),
    ]
    if plan.streams is not None:
        parts.append(render_streams(plan.streams))
    parts.append(render_graph(plan.graph))
    return Group(*parts)
