"""Research a person writes (``ralph research N --interactive``, then ``--done``).

Starting takes the issue as the research phase would: its preconditions (an XS/S issue
not researched yet), its lock (Research in Progress), and a working copy under
``.ralph/drafts/`` at the path the research document will have, with the original's
frontmatter and sections and a placeholder in every part to write. An issue still in
Backlog is the person's triage as well: it goes to Research Needed first.

Finishing is the research phase with the person as its agent (``PhaseRunner`` with
``HandWritten``): the same validation, commit on the base branch, ``## Research
Document`` comment and move to Ready for Plan.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date
from pathlib import Path

from ralph._text import check_text
from ralph.artifacts import (
    REQUIRED_SECTIONS,
    ArtifactKind,
    files_under,
    parse_frontmatter,
    research_path,
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
from ralph.phases._registry import get_phase
from ralph.phases._runner import PhaseOutcome, PhaseRunner
from ralph.project import Project
from ralph.tracker import Issue
from ralph.workflow import WorkflowState

__all__ = ["draft_research", "submit_research"]

_PHASE = "research"
#: A working copy is a draft until it is submitted; the committed document is complete.
_DRAFT, _COMPLETE = "draft", "complete"
_STATUS = re.compile(rf"^status:[ \t]*{_DRAFT}[ \t]*$", re.MULTILINE)
_MODIFY, _READ = REQUIRED_SECTIONS[ArtifactKind.RESEARCH][1:]


def _skeleton(issue: Issue, day: date) -> str:
    todo = f"{PLACEHOLDER}: write this."
    return (
        f"---\ndate: {day.isoformat()}\ngithub_issue: {issue.number}\n"
        f"github_url: {issue.url}\nstatus: {_DRAFT}\ntype: research\n---\n\n"
        f"# Research: GH-{issue.number} {issue.title}\n\n"
        f"## Problem Statement\n\n{todo}\n\n## Current State\n\n{todo}\n\n"
        f"## Key Discoveries\n\n- {PLACEHOLDER}: `path/to/file.py:12` - what it shows\n\n"
        f"## Possible Approaches\n\n{todo} (pros and cons of each)\n\n"
        f"## Risks\n\n{todo}\n\n## Recommended Next Steps\n\n{todo}\n\n"
        f"## Files Affected\n\n"
        f"{_MODIFY}\n- `{PLACEHOLDER}` - why (repository-relative paths in backticks; "
        f"'- None' when there are none)\n\n"
        f"{_READ}\n- `{PLACEHOLDER}` - why\n"
    )


def _members(project: Project, number: int, ctx: PhaseContext) -> list[Issue]:
    phase = get_phase(_PHASE)
    members = phase.members(ctx, project.tracker.get_issue(number))
    # From Backlog the person triages too: checked as if Research Needed, moved once
    # everything else holds.
    phase.check(
        ctx,
        [
            replace(i, workflow_state=WorkflowState.RESEARCH_NEEDED)
            if i.workflow_state is WorkflowState.BACKLOG
            else i
            for i in members
        ],
    )
    return members


def draft_research(project: Project, number: int) -> Draft:
    """Start (or resume) the person's research of ``number``: the research phase's
    preconditions, the issue locked in Research in Progress, and the working copy
    (kept when there is one, else a skeleton for the research phase to accept)."""
    ctx = PhaseContext(project, date.today())
    members = _members(project, number, ctx)
    phase = get_phase(_PHASE)
    for issue in members:
        if issue.workflow_state is WorkflowState.BACKLOG:
            ctx.move(issue.number, WorkflowState.RESEARCH_NEEDED.value, command="human")
            ctx.say(f"Moved #{issue.number} from Backlog to Research Needed (triaged by you).")
        if issue.workflow_state is not phase.lock_state:
            ctx.move(issue.number, "__LOCK__", command=phase.command)
            ctx.say(f"Locked #{issue.number}: Research in Progress.")
    finish = f"then: ralph research {number} --done"
    existing = draft_of(project, ArtifactKind.RESEARCH, number)
    if existing is not None:
        kept = existing.relative_to(drafts_folder(project)).as_posix()
        return Draft(existing, kept, False, finish, tuple(ctx.said))
    primary = members[0]
    path = research_path(primary.number, primary.title, ctx.day)
    target = drafts_folder(project) / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(_skeleton(primary, ctx.day))
    return Draft(target, path, True, finish, tuple(ctx.said))


def _given_or_draft(project: Project, number: int, text: str | None) -> tuple[str, Path | None]:
    if text is not None:
        return check_text(text, "the research"), None
    draft = draft_of(project, ArtifactKind.RESEARCH, number)
    if draft is None:
        raise InvalidInput(
            f"#{number} has no research draft; start one with ralph research {number} "
            "--interactive, or pass --file PATH"
        )
    return check_text(draft.read_text(), f"the draft {draft}"), draft


def _completed(text: str) -> str:
    """The working copy as the document is committed: ``status: complete`` (the
    original's), unless the person set another status."""
    fields, _ = parse_frontmatter(text)
    if fields.get("status") != _DRAFT:
        return text
    # In place, the frontmatter's first status line: its keys keep the original's order.
    return _STATUS.sub(f"status: {_COMPLETE}", text, count=1)


def _summary(text: str) -> str:
    modify = files_under(text, _MODIFY)
    listed = ", ".join(modify) if modify else "none"
    return f"researched by a person; {len(modify)} file(s) to modify: {listed}."


def submit_research(project: Project, number: int, text: str | None = None) -> PhaseOutcome:
    """Run the research phase on ``number`` with ``text`` (else the person's draft) as
    the research document. InvalidInput, before anything moves, when the research
    phase would reject it."""
    ctx = PhaseContext(project, date.today())
    members = _members(project, number, ctx)
    if any(i.workflow_state is WorkflowState.BACKLOG for i in members):
        raise InvalidInput(
            f"#{number} is in Backlog; start with ralph research {number} --interactive"
        )
    written, draft = _given_or_draft(project, number, text)
    document = _completed(written)
    primary = members[0]
    path = research_path(primary.number, primary.title, ctx.day)
    problems = hand_problems(ctx, _PHASE, members, path, document)
    if problems:
        raise InvalidInput(f"the research is not ready: {'; '.join(problems)}")
    person = HandWritten({"document": document}, {"summary": _summary(document)})
    outcome = PhaseRunner(project, person, max_attempts=1).run(_PHASE, number)
    if outcome.ok and draft is not None:
        draft.unlink()
    return outcome
