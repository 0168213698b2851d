"""A plan a person writes (``ralph plan N --interactive``, ``--done``; skill
``create-plan``) and revises (``ralph plan iterate N``; skill ``iterate-plan``).

Writing one is the plan phase with the person as its agent: the same preconditions
(the group Ready for Plan, researched), the same path, validation, commit, ``##
Implementation Plan`` comment and move to Plan in Review (``PhaseRunner`` with
``HandWritten``). Revising one commits the new text over the plan, posts the original's
``## Plan Updated`` comment with the changes and the reason, clears ``needs-iteration``
and puts the plan back in review, under the ``ralph_iterate_plan`` contract.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from ralph._text import check_text
from ralph.artifacts import (
    AUTOMATED,
    MANUAL,
    ArtifactKind,
    plan_path,
    plan_steps,
)
from ralph.errors import InvalidInput
from ralph.phases._by_hand import (
    PLACEHOLDER,
    Draft,
    HandWritten,
    draft_of,
    drafts_folder,
    hand_problems,
)
from ralph.phases._context import PhaseContext
from ralph.phases._group import plan_members
from ralph.phases._phase import PhaseRefused
from ralph.phases._registry import get_phase
from ralph.phases._review import NEEDS_ITERATION_LABEL
from ralph.phases._runner import PhaseOutcome, PhaseRunner
from ralph.project import Project
from ralph.tracker import Issue
from ralph.workflow import WorkflowState

__all__ = ["draft_plan", "iterate_plan", "submit_plan"]

_ITERATE = "ralph_iterate_plan"
_ITERABLE = (WorkflowState.READY_FOR_PLAN, WorkflowState.PLAN_IN_REVIEW)


def _skeleton(members: Sequence[Issue], day: date, test_command: str) -> str:
    numbers = ", ".join(str(i.number) for i in members)
    urls = ", ".join(i.url for i in members if i.url)
    check = f"Tests pass: `{test_command}`" if test_command.strip() else f"{PLACEHOLDER}: a check"
    todo = f"{PLACEHOLDER}: write this."
    phases = "\n".join(
        f"## Phase {n}: GH-{issue.number} {issue.title}\n\n"
        f"### Changes Required\n\n#### 1. {PLACEHOLDER}: the change\n"
        f"**File**: `{PLACEHOLDER}`\n**Changes**: {todo}\n\n"
        f"### Success Criteria\n\n{AUTOMATED}\n- [ ] {check}\n\n"
        f"{MANUAL}\n- [ ] {PLACEHOLDER}: what a person checks\n"
        for n, issue in enumerate(members, start=1)
    )
    return (
        f"---\ndate: {day.isoformat()}\nstatus: draft\ngithub_issues: [{numbers}]\n"
        f"github_urls: [{urls}]\nprimary_issue: {members[0].number}\n---\n\n"
        f"# {members[0].title} - Implementation Plan\n\n"
        f"## Overview\n\n{todo}\n\n## Current State Analysis\n\n{todo}\n\n"
        f"## Desired End State\n\n{todo}\n\n## What We're NOT Doing\n\n{todo}\n\n"
        f"## Implementation Approach\n\n{todo}\n\n{phases}\n"
        f"## Integration Testing\n\n- [ ] {check}\n\n## References\n\n"
        + "".join(f"- #{i.number}: {i.title}\n" for i in members)
    )


def _plan_members(project: Project, number: int) -> tuple[PhaseContext, list[Issue]]:
    ctx = PhaseContext(project, date.today())
    phase = get_phase("plan")
    members = phase.members(ctx, project.tracker.get_issue(number))
    phase.check(ctx, members)  # AlreadyDone or PhaseRefused: the plan phase's rules
    return ctx, members


def draft_plan(project: Project, number: int) -> Draft:
    """The person's working copy of the plan for ``number``: kept when there is one;
    else the committed plan when the issue has one to revise (Ready for Plan after a
    rejection, or Plan in Review), else a skeleton for the plan phase to accept."""
    issue = project.tracker.get_issue(number)
    existing = draft_of(project, ArtifactKind.PLAN, number)
    ctx = PhaseContext(project, date.today())
    planned = ctx.find(ArtifactKind.PLAN, issue, heal=False)
    if planned is not None and issue.workflow_state in _ITERABLE:
        revise = f"then: ralph plan iterate {number} --feedback REASON"
        if existing is not None:
            return Draft(existing, planned.path, False, revise)
        target = drafts_folder(project) / planned.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(ctx.read_base(planned.path) or "")
        return Draft(target, planned.path, True, revise)
    ctx, members = _plan_members(project, number)
    finish = f"then: ralph plan {number} --done"
    if existing is not None:
        return Draft(
            existing, existing.relative_to(drafts_folder(project)).as_posix(), False, finish
        )
    path = plan_path([i.number for i in members], members[0].title, ctx.day)
    target = drafts_folder(project) / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(_skeleton(members, ctx.day, project.config.test_command))
    return Draft(target, path, True, finish)


def _given_or_draft(project: Project, number: int, text: str | None) -> tuple[str, Path | None]:
    if text is not None:
        return check_text(text, "the plan"), None
    draft = draft_of(project, ArtifactKind.PLAN, number)
    if draft is None:
        raise InvalidInput(
            f"#{number} has no plan draft; start one with ralph plan {number} --interactive, "
            "or pass --file PATH"
        )
    return check_text(draft.read_text(), f"the draft {draft}"), draft


def submit_plan(project: Project, number: int, text: str | None = None) -> PhaseOutcome:
    """Run the plan phase on ``number`` with ``text`` (else the person's draft) as the
    plan. InvalidInput, before anything moves, when the plan phase would reject it."""
    ctx, members = _plan_members(project, number)
    plan, draft = _given_or_draft(project, number, text)
    path = plan_path([i.number for i in members], members[0].title, ctx.day)
    problems = hand_problems(ctx, "plan", members, path, plan)
    if problems:
        raise InvalidInput(f"the plan is not ready: {'; '.join(problems)}")
    total = len(plan_steps(plan))
    person = HandWritten({"document": plan}, {"summary": f"Written by a person ({total} phases)."})
    outcome = PhaseRunner(project, person, max_attempts=1).run("plan", number)
    if outcome.ok and draft is not None:
        draft.unlink()
    return outcome


def _changes(old: str, new: str) -> list[str]:
    """What changed between two plans, phase by phase, for a person to read."""
    before = {p.number: p for p in plan_steps(old)}
    after = {p.number: p for p in plan_steps(new)}
    lines = []
    for n in sorted(before.keys() | after.keys()):
        was, now = before.get(n), after.get(n)
        if was is None and now is not None:
            lines.append(f"- Phase {n} added: {now.title}")
        elif now is None and was is not None:
            lines.append(f"- Phase {n} removed: {was.title}")
        elif was is not None and now is not None and (was.title, was.body) != (now.title, now.body):
            lines.append(f"- Phase {n} changed: {now.title}")
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
    changed = sum(1 for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---"))
    lines.append(f"- {changed} line(s) changed in all")
    return lines


def iterate_plan(project: Project, number: int, feedback: str, text: str | None = None) -> str:
    """Revise the plan of ``number`` (and the issues it covers) with ``text``, else the
    person's working copy; returns the plan's path. Refused unless every issue is Ready
    for Plan or Plan in Review and the new text passes the plan phase's checks."""
    reason = check_text(feedback, "the feedback")
    ctx = PhaseContext(project, date.today())
    issue = project.tracker.get_issue(number)
    members = plan_members(ctx, issue)
    waiting = [i for i in members if i.workflow_state not in _ITERABLE]
    if waiting:
        listed = ", ".join(f"#{i.number} ({i.workflow_state or 'no state'})" for i in waiting)
        raise PhaseRefused(f"only a plan Ready for Plan or in review can be iterated; {listed}")
    found = ctx.find(ArtifactKind.PLAN, members[0], heal=False)
    assert found is not None  # plan_members found it
    old = ctx.read_base(found.path) or ""
    new, draft = _given_or_draft(project, number, text)
    problems = hand_problems(ctx, "plan", members, found.path, new)
    if problems:
        raise InvalidInput(f"the revised plan is not ready: {'; '.join(problems)}")
    if new == old:
        raise InvalidInput(f"the revised plan is the same as {found.path}; change it first")
    for member in members:  # Plan in Review goes back through Ready for Plan (the matrix)
        if member.workflow_state is WorkflowState.PLAN_IN_REVIEW:
            ctx.move(member.number, WorkflowState.READY_FOR_PLAN, command=_ITERATE)
        ctx.move(member.number, "__LOCK__", command=_ITERATE)
        ctx.held[member.number] = WorkflowState.PLAN_IN_PROGRESS
    primary = f"GH-{members[0].number}"
    ctx.commit_documents({found.path: new}, f"docs(plan): {primary} plan updated")
    changes = "\n".join(_changes(old, new))
    link = ctx.links.link(found.path)
    for member in members:
        ctx.comment_once(
            member.number,
            f"## Plan Updated\n\n{link}\n\nChanges:\n{changes}\n\nReason: {reason.strip()}\n",
        )
        labels = list(project.tracker.get_issue(member.number).labels)
        if NEEDS_ITERATION_LABEL in labels:
            labels.remove(NEEDS_ITERATION_LABEL)
            project.tracker.update_issue(member.number, labels=labels)
        ctx.move(member.number, "__COMPLETE__", command=_ITERATE)
    if draft is not None:
        draft.unlink()
    return found.path
