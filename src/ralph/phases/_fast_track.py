"""The XS fast track in the phases: what triage does when the guards grant it (Ralph
writes the plan from the issue, commits and links it as the plan phase does, and moves
the issue to In Progress), and what implementation does when a fast-tracked issue's
implementation fails (once: back to Research Needed for the full pipeline).

Whether an issue was fast-tracked, and whether its fast track failed, is on the issue
(labels ``ralph-fast-track`` and ``ralph-fast-track-failed``), so it survives a restart
and works on every tracker.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from ralph.artifacts import AUTOMATED, MANUAL, ArtifactKind, artifact_comment, plan_path
from ralph.errors import GitError
from ralph.phases._branches import branch_for, worktree_id
from ralph.phases._context import PhaseContext
from ralph.pipeline import detect_group
from ralph.tracker import Issue
from ralph.workflow import (
    FAST_TRACK_LABEL,
    FAST_TRACK_SPENT_LABEL,
    FastTrack,
    WorkflowState,
    decide_fast_track,
)

__all__ = ["FAST_TRACKED", "decide_for", "fall_back", "fast_track", "fast_track_plan"]

logger = logging.getLogger(__name__)

#: How every line about the fast track begins (the run report gathers them).
FAST_TRACKED = "Fast track"
#: The branch a failed fast track's work is kept on, for a person to look at.
_KEPT_SUFFIX = "-fast-track"


def decide_for(ctx: PhaseContext, issue: Issue, result: Mapping[str, object]) -> FastTrack:
    """The guards' decision on the triage agent's proposal for ``issue``."""
    tracker = ctx.tracker
    children = len(tracker.get_issue(issue.parent).sub_issues) if issue.parent else 0
    group = detect_group(issue.number, tracker.relations, tracker.relations_of)
    others = [
        other.number
        for other in tracker.get_issues([n for n in group.issues if n != issue.number])
        if other.is_open
    ]
    files = result.get("files")
    estimate = result.get("estimate") if issue.estimate is None else issue.estimate
    config = ctx.project.config
    return decide_fast_track(
        enabled=config.fast_track,
        proposed=bool(result.get("fast_track")),
        estimate=str(estimate) if estimate else None,
        files=[str(f) for f in files] if isinstance(files, list) else [],
        labels=issue.labels,
        epic_children=children,
        group=others,
        shared_paths=config.shared_paths,
    )


def fast_track_plan(issue: Issue, files: Sequence[str], day: str, test_command: str) -> str:
    """The plan Ralph writes for a fast-tracked issue: one phase, the files the triage
    named, the issue's description, and the project's tests as its automated check."""
    check = f"Tests pass: `{test_command}`" if test_command.strip() else "The change is committed"
    listed = "\n".join(f"- `{path}`" for path in files)
    changes = "\n".join(
        f"#### {n}. `{path}`\n**File**: `{path}`\n**Changes**: as the issue describes (below).\n"
        for n, path in enumerate(files, start=1)
    )
    described = issue.body.strip() or issue.title
    return f"""---
date: {day}
status: approved
github_issues: [{issue.number}]
github_urls: [{issue.url}]
primary_issue: {issue.number}
fast_track: true
---

# {issue.title} - Implementation Plan (fast track)

> Written by Ralph from the issue: an XS change naming its files is fast-tracked
> (no research, plan or review). If its implementation fails, the issue goes through
> the full pipeline.

## Overview

{described}

## Files

{listed}

## What We're NOT Doing

Anything the issue does not ask for.

## Phase 1: GH-{issue.number} {issue.title}

### Changes Required

{changes}
### Success Criteria

{AUTOMATED}
- [ ] {check}

{MANUAL}
- [ ] The behaviour described in #{issue.number} is visible

## References

- #{issue.number}: {issue.title}
"""


def fast_track(
    ctx: PhaseContext, issue: Issue, files: Sequence[str], reason: str, *, command: str
) -> str:
    """Write, commit and link ``issue``'s plan, label it and move it to In Progress;
    returns the plan's path."""
    n = issue.number
    named = list(dict.fromkeys(f.strip().removeprefix("./") for f in files))
    path = plan_path([n], issue.title, ctx.day)
    text = fast_track_plan(issue, named, ctx.day.isoformat(), ctx.project.config.test_command)
    ctx.commit_documents({path: text}, f"docs(plan): GH-{n} fast-track plan")
    summary = f"{FAST_TRACKED}: written by Ralph from the issue ({reason})."
    ctx.comment_once(n, artifact_comment(ArtifactKind.PLAN, ctx.links.link(path), summary))
    labels = ctx.tracker.get_issue(n).labels
    if FAST_TRACK_LABEL not in labels:
        ctx.tracker.update_issue(n, labels=[*labels, FAST_TRACK_LABEL])
    ctx.move(n, WorkflowState.IN_PROGRESS, command=command)
    return path


def fall_back(ctx: PhaseContext, members: Sequence[Issue], why: str, *, command: str) -> bool:
    """A fast-tracked issue whose implementation failed goes back to Research Needed,
    once (True); its work is kept on ``feature/GH-N-fast-track``. False: not a fast
    track, or its second failure: it escalates as any other."""
    if len(members) != 1 or FAST_TRACK_LABEL not in members[0].labels:
        return False
    issue = members[0]
    n = issue.number
    kept = _keep_branch(ctx, members)
    labels = [label for label in issue.labels if label != FAST_TRACK_LABEL]
    ctx.tracker.update_issue(n, labels=[*labels, FAST_TRACK_SPENT_LABEL])
    where = f" Its work is kept on `{kept}`." if kept else ""
    ctx.comment_once(
        n,
        f"## Fast Track Abandoned\n\nThe fast-tracked implementation failed: {why}\n\n"
        f"The issue goes through research, plan and review once; if its implementation "
        f"fails again, it escalates.{where}\n",
    )
    ctx.move(n, WorkflowState.RESEARCH_NEEDED, command=command)
    ctx.say(f"{FAST_TRACKED} abandoned for #{n}: the full pipeline (research, plan, review).")
    return True


def _keep_branch(ctx: PhaseContext, members: Sequence[Issue]) -> str:
    """The failed worktree removed and its branch renamed, so the full pipeline's
    implementation starts afresh from its own plan; the new name ("" when none)."""
    git = ctx.project.git
    worktree = worktree_id(ctx, members)
    branch = branch_for(worktree)
    ctx.worktrees.remove(worktree)
    if not git.has_branch(branch):
        return ""
    kept = f"{branch}{_KEPT_SUFFIX}"
    try:
        git.git("branch", "-M", branch, kept, what=f"keep {branch} as {kept}")
    except GitError:  # the branch stays: the next implementation builds on it
        logger.warning("could not keep the fast track's branch", extra={"branch": branch})
        return branch
    return kept
