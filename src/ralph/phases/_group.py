"""Which issues a group phase covers: the group of the tracker's tree (plan) or one work
stream of it, or the issues a plan names (review, implementation, pull request)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ralph.artifacts import ArtifactKind, StreamNames, parse_frontmatter
from ralph.phases._context import PhaseContext
from ralph.phases._phase import PhaseRefused
from ralph.pipeline import detect_group
from ralph.tracker import Issue
from ralph.workflow import TERMINAL_STATES, WorkflowState, is_earlier_state

__all__ = ["group_members", "plan_fields", "plan_members", "planned_stream"]


def group_members(ctx: PhaseContext, seed: Issue) -> list[Issue]:
    """The seed's group in implementation order, without finished members and without
    members already past planning (they belong to an earlier plan)."""
    group = detect_group(seed.number, ctx.tracker.relations, ctx.tracker.relations_of)
    others = [n for n in group.issues if n != seed.number]
    read = dict(zip(others, ctx.tracker.get_issues(others), strict=True))
    members = []
    for number in group.issues:
        issue = read.get(number, seed)
        state = issue.workflow_state
        if number != seed.number and (
            not issue.is_open
            or state in TERMINAL_STATES
            or is_earlier_state(WorkflowState.PLAN_IN_PROGRESS, state)
        ):
            continue
        members.append(issue)
    return members


def planned_stream(ctx: PhaseContext, members: Sequence[Issue]) -> StreamNames | None:
    """The work stream a plan run covers (the run is limited to one), or None. Its epic
    is the issue the group was split from: the members' parent, else the group's
    primary."""
    if not ctx.stream:
        return None
    primary = members[0]
    epic = primary.parent
    if epic is None:
        epic = detect_group(primary.number, ctx.tracker.relations, ctx.tracker.relations_of).primary
    return StreamNames.of(epic, ctx.stream)


def plan_fields(ctx: PhaseContext, issue: Issue) -> dict[str, Any]:
    """The frontmatter of the issue's plan; PhaseRefused when it has none."""
    found = ctx.find(ArtifactKind.PLAN, issue)
    if found is None:
        planned = next(
            (n for n in issue.sub_issues if ctx.find(ArtifactKind.PLAN, ctx.tracker.get_issue(n))),
            None,
        )
        if planned is not None:  # an epic: its children carry the plans
            raise PhaseRefused(
                f"#{issue.number} is an epic; its plan is on its sub-issue #{planned}: run the "
                f"same command with {planned} instead of {issue.number}"
            )
        raise PhaseRefused(
            f"#{issue.number} has no implementation plan; run ralph run plan {issue.number} first "
            f"(or write it yourself: ralph plan {issue.number} --interactive)"
        )
    fields, _ = parse_frontmatter(ctx.read_base(found.path) or "")
    return fields


def plan_members(ctx: PhaseContext, issue: Issue) -> list[Issue]:
    """The issues the issue's plan covers (frontmatter ``github_issues``), primary first."""
    fields = plan_fields(ctx, issue)
    listed = fields.get("github_issues") or [fields.get("github_issue") or issue.number]
    numbers = [int(n) for n in listed if isinstance(n, int) or str(n).isdigit()]
    primary = fields.get("primary_issue")
    if isinstance(primary, int) and primary in numbers:
        numbers.remove(primary)
        numbers.insert(0, primary)
    return [issue if n == issue.number else ctx.tracker.get_issue(n) for n in numbers]
