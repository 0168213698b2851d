"""Which files the builder's commits change that the plan does not name (the original's
implement checked its "Will Modify" list): a warning in the implementation's report and
on its pull request, never a failure (a plan cannot foresee every file a change needs)."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.artifacts import ArtifactKind, files_under, plan_steps, step_files
from ralph.phases._context import PhaseContext
from ralph.tracker import Issue

__all__ = ["unplanned_files"]


def _named(ctx: PhaseContext, members: Sequence[Issue]) -> set[str] | None:
    """The files the plan's phases for ``members`` and their research name; None when
    there is no plan to hold the commits against."""
    plan = ctx.find(ArtifactKind.PLAN, members[0], heal=False)
    text = ctx.read_base(plan.path) if plan is not None else None
    if plan is None or text is None:
        return None
    numbers = {issue.number for issue in members}
    steps = plan_steps(text)
    # A plan whose phases name no issue is one phase list for the whole group.
    ours = [s for s in steps if s.issue in numbers] or [s for s in steps if s.issue is None]
    named = {plan.path, *(path for step in ours for path in step_files(step))}
    for issue in members:
        research = ctx.find(ArtifactKind.RESEARCH, issue, heal=False)
        found = ctx.read_base(research.path) if research is not None else None
        if found is not None:
            named.update(files_under(found, "### Will Modify"))
    return named


def unplanned_files(ctx: PhaseContext, members: Sequence[Issue], branch: str) -> list[str]:
    """The files ``branch`` changes since the base that neither the plan's phases for
    ``members`` nor their research's Will Modify list name (a named folder, ending in
    ``/``, covers what is in it)."""
    named = _named(ctx, members)
    if named is None:
        return []
    folders = tuple(path for path in named if path.endswith("/"))
    changed = ctx.project.git.changed_files(ctx.base, branch)
    return [path for path in changed if path not in named and not path.startswith(folders)]
