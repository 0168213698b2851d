"""The scripted builder and validator: a plan with one phase per issue that carries the
issue's diff, a review that checks the plan's shape, and an implementation that applies
each phase's diff (or, for an issue without one, records it in a placeholder file),
ticks its boxes and commits."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from ralph.artifacts import AUTOMATED, MANUAL, diff_blocks, files_under, plan_steps, tick_step
from ralph.git import GitRepo
from ralph.runtimes._model import AgentBrief, IssueContext
from ralph.runtimes.scripted._limits import SIMULATOR_DOCS, beyond_simulator, edit_command
from ralph.runtimes.scripted._text import marker

__all__ = [
    "PLACEHOLDER_FOLDER",
    "UNPLANNED_FILE",
    "apply_diff",
    "commit_unplanned_file",
    "git_as_agent",
    "implement",
    "placeholder_path",
    "plan",
    "review",
    "select",
    "with_fact",
]

#: What an attempt of best of N does, by the issue's ``Try K: <behaviour>`` line:
#: ``small`` the plan's change alone (also what an issue without the line gets),
#: ``large`` that and a long file nobody asked for, ``break-tests`` that and a line that
#: makes the changed module fail at import.
TRY_BEHAVIOURS = ("small", "large", "break-tests")
_PADDING_LINES = 120

_IDENTITY = {
    "GIT_AUTHOR_NAME": "Ralph (simulated agent)",
    "GIT_AUTHOR_EMAIL": "ralph@localhost",
    "GIT_COMMITTER_NAME": "Ralph (simulated agent)",
    "GIT_COMMITTER_EMAIL": "ralph@localhost",
}


def with_fact(brief: AgentBrief, key: str, value: str) -> AgentBrief:
    return dataclasses.replace(brief, facts={**brief.facts, key: value})


def _write(workdir: Path, relative: str, text: str) -> None:
    target = workdir / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


#: Where an issue without a ```diff block gets its placeholder change: a folder of its
#: own, so it can meet nothing of the project's.
PLACEHOLDER_FOLDER = "ralph-simulated/"


def placeholder_path(number: int) -> str:
    return f"{PLACEHOLDER_FOLDER}issue-{number}.md"


def _placeholder(issue: IssueContext) -> str:
    """What a placeholder change records: that it is one, why, and what was asked."""
    asked = issue.body.strip() or "(the issue has no description)"
    return f"""# #{issue.number}: {issue.title}

A placeholder change by Ralph's simulated agent (`--agent scripted`), not a real one.
The issue has no ```diff block for the simulated agent to apply, so it records here
what the issue asked, and the issue goes through a pull request and a merge. A real
agent, or a ```diff block in the issue, makes the change itself: see
{SIMULATOR_DOCS}. Nothing reads this file; delete it whenever you like.

## What the issue asked

{asked}
"""


def _phase(index: int, issue: IssueContext, total: int, test_command: str) -> str:
    research = issue.document("research")
    files = files_under(research.text, "### Will Modify") if research else []
    diffs = diff_blocks(issue.body)
    changes = [f"#### 1. {issue.title}", f"**File**: `{files[0]}`" if files else ""]
    if diffs:
        changes.append("**Changes**: apply this change:")
    else:  # what ``implement`` does without a diff, named so it is no unplanned file
        changes += [
            f"**File**: `{placeholder_path(issue.number)}`",
            "**Changes**: a simulated placeholder: the issue has no ```diff block to apply, "
            "so the simulated agent records what it asks in this file.",
        ]
    if diffs:
        changes.append(f"```diff\n{diffs[0]}```")
    check = f"Tests pass: `{test_command}`" if test_command else "The change is committed"
    depends = f"Phase {index - 1}" if index > 1 else "nothing"
    where = issue.url or f"#{issue.number}"
    source = research.path if research else "none"
    creates = f"the base for Phase {index + 1}" if index < total else "the finished change"
    return f"""## Phase {index}: GH-{issue.number} {issue.title}

> **Issue**: {where} | **Research**: {source} | **Depends on**: {depends}

### Changes Required

{chr(10).join(line for line in changes if line)}

### Success Criteria

{AUTOMATED}
- [ ] {check}

{MANUAL}
- [ ] The behaviour described in #{issue.number} is visible

**Creates for next phase**: {creates}
"""


def plan(brief: AgentBrief) -> dict[str, Any]:
    issues = brief.issues
    primary = brief.primary
    test_command = brief.facts.get("test_command", "")
    numbers = ", ".join(str(i.number) for i in issues)
    rows = "\n".join(
        f"| {n} | GH-{i.number} | {i.title} | {i.estimate or '-'} |"
        for n, i in enumerate(issues, start=1)
    )
    phases = "\n".join(_phase(n, i, len(issues), test_command) for n, i in enumerate(issues, 1))
    stream = brief.facts.get("stream_id")
    stream_lines = f"stream_id: {stream}\nstream_issues: [{numbers}]\n" if stream else ""
    text = f"""---
date: {brief.facts.get("date", "")}
status: draft
github_issues: [{numbers}]
github_urls: [{", ".join(i.url for i in issues if i.url)}]
primary_issue: {primary.number}
{stream_lines}---

# {primary.title} - Atomic Implementation Plan

> Written by a simulated agent (Ralph's scripted runtime), not by a model.

## Overview

| Phase | Issue | Title | Estimate |
|---|---|---|---|
{rows}

**Why grouped**: {"the issues depend on each other" if len(issues) > 1 else "a single issue"}.

## Current State Analysis

See the research documents linked from each phase.

## Desired End State

Every phase below is implemented and the project's tests pass.

### Verification
- [ ] All phases' automated verification passes

## What We're NOT Doing

Anything the issues do not ask for.

## Implementation Approach

One phase per issue, in dependency order.

{phases}
## Integration Testing

- [ ] The project's test command passes on the merged result

## References

{chr(10).join(f"- #{i.number}: {i.title}" for i in issues)}
"""
    _write(brief.workdir, brief.outputs["document"], text)
    return {
        "document": brief.outputs["document"],
        "phase_count": len(issues),
        "summary": f"{len(issues)} phase(s), one per issue, in dependency order.",
    }


def review(brief: AgentBrief) -> dict[str, Any]:
    primary = brief.primary
    document = primary.document("plan")
    text = document.text if document else ""
    problems = []
    phases = plan_steps(text)
    if not phases:
        problems.append("The plan has no '## Phase N' sections.")
    problems += [
        f"Phase {p.number} has no '{AUTOMATED}' checkboxes." for p in phases if not p.automated
    ]
    verdict = brief.facts.get("verdict", "")
    asked = (marker(primary.body, "Review") or "").lower() == "needs-iteration"
    iterated = any("VERDICT: NEEDS_ITERATION" in comment for comment in primary.comments)
    if asked and not iterated:
        verdict = "NEEDS_ITERATION"
        problems.append("The issue asks for one more iteration of the plan.")
    if verdict == "NEEDS_ITERATION" and not problems:
        problems.append("Scripted fault: the reviewer asks for another iteration.")
    verdict = "NEEDS_ITERATION" if problems else "APPROVED"
    critique = brief.outputs["critique"]
    status = "approved" if verdict == "APPROVED" else "needs-iteration"
    found = "\n".join(f"- {p}" for p in problems) or "- No major issues found."
    _write(
        brief.workdir,
        critique,
        f"""---
date: {brief.facts.get("date", "")}
github_issue: {primary.number}
github_url: {primary.url}
plan_document: {document.path if document else ""}
status: {status}
type: critique
---

# Plan critique: GH-{primary.number} {primary.title}

> Written by a simulated agent (Ralph's scripted runtime), not by a model.

## Verdict

{verdict}

## Findings

{found}
""",
    )
    return {"verdict": verdict, "issues": problems, "critique": critique, "summary": found}


def git_as_agent(workdir: Path, *args: str) -> str:
    """git in the agent's worktree, committing as the simulated agent."""
    return GitRepo(workdir).git(*args, what=f"git {args[0]}", env=_IDENTITY)


#: The file ``commit_unplanned_file`` adds: no plan names it.
UNPLANNED_FILE = "notes/agent-notes.md"


def commit_unplanned_file(workdir: Path) -> None:
    """A builder that also commits a file its plan does not name."""
    _write(workdir, UNPLANNED_FILE, "Notes the plan never asked for.\n")
    git_as_agent(workdir, "add", UNPLANNED_FILE)
    git_as_agent(workdir, "commit", "-q", "-m", "docs: notes")


def apply_diff(workdir: Path, diff: str, *, new_only: bool = False) -> str | None:
    """Apply ``diff``; None on success (or when it is applied already, unless
    ``new_only``), else why not."""
    patch = workdir / ".git-scripted.patch"
    patch.write_text(diff)
    try:
        repo = GitRepo(workdir)
        check = repo.run("apply", "--check", str(patch))
        if check.returncode == 0:
            git_as_agent(workdir, "apply", str(patch))
            return None
        if repo.run("apply", "--reverse", "--check", str(patch)).returncode == 0:
            return "it is applied already" if new_only else None
        return check.stderr.strip()
    finally:
        patch.unlink()


def _diffs_for(phase: str, issue: str) -> list[str]:
    """The diffs a plan phase is implemented with: the phase's own, unless the issue's
    first diff is one the phase lacks, which a person wrote into the issue after the
    plan (``ralph issue edit``, then ``ralph issue retry``): the newer word."""
    planned = diff_blocks(phase)
    asked = diff_blocks(issue)[:1]
    if asked and asked[0] not in planned:
        return asked
    return planned or asked


def implement(brief: AgentBrief) -> dict[str, Any]:
    workdir = Path(brief.workdir)
    primary = brief.primary
    document = primary.document("plan")
    if document is None:
        return {"escalate": "No plan was given."}
    on_disk = workdir / document.path
    text = on_disk.read_text() if on_disk.exists() else document.text
    issues = {issue.number: issue for issue in brief.issues}
    phases = plan_steps(text)
    touched: list[str] = []
    for phase in phases:
        if phase.done:
            continue
        owner = issues.get(phase.issue or primary.number, primary)
        diffs = _diffs_for(phase.body, owner.body)
        if not diffs:
            _write(workdir, placeholder_path(owner.number), _placeholder(owner))
        for diff in diffs:
            problem = apply_diff(workdir, diff)
            if problem:
                return {
                    "escalate": beyond_simulator(
                        f"Phase {phase.number}'s diff does not apply: {problem}",
                        "applies the issue's ```diff blocks as written",
                        f"fix the diff with {edit_command(owner.number)}",
                    )
                }
        text = tick_step(text, phase.number)
        _write(workdir, document.path, text)
        git_as_agent(workdir, "add", "-A")
        changed = git_as_agent(workdir, "diff", "--cached", "--name-only").split()
        touched += changed
        title = re.sub(r"^GH-\d+\s*", "", phase.title)
        where = f"Phase {phase.number} of {len(phases)}: #{owner.number} - {owner.title}"
        kind = "feat" if diffs else "chore(simulated placeholder)"
        git_as_agent(workdir, "commit", "-q", "-m", f"{kind}: {title}\n\n{where}")
    touched += _try_behaviour(workdir, brief, touched)
    done = sum(1 for p in plan_steps(text) if p.done)
    return {
        "phases_done": done,
        "phases_total": len(phases),
        "files": sorted(set(touched)),
        "tests": "PASSING",
        "summary": f"{done} of {len(phases)} phase(s) implemented.",
    }


def _try_behaviour(workdir: Path, brief: AgentBrief, touched: list[str]) -> list[str]:
    """An attempt's extra work, per its ``Try K:`` line; the files it committed."""
    attempt = brief.facts.get("attempt", "")
    behaviour = (marker(brief.primary.body, f"Try {attempt}") or "small") if attempt else ""
    if behaviour not in ("large", "break-tests"):
        return []
    if behaviour == "large":
        extra = f"scripted_try_{attempt}_notes.txt"
        lines = [
            f"note {n}: written by try {attempt}, which nobody asked for"
            for n in range(1, _PADDING_LINES)
        ]
        _write(workdir, extra, "\n".join(lines) + "\n")
    else:
        modules = [path for path in touched if path.endswith(".py") and "test" not in path]
        if not modules:
            return []
        extra = modules[0]
        broken = (workdir / extra).read_text()
        _write(
            workdir, extra, f"{broken}\nraise RuntimeError('try {attempt} breaks this module')\n"
        )
    git_as_agent(workdir, "add", "-A")
    git_as_agent(workdir, "commit", "-q", "-m", f"chore: try {attempt} ({behaviour})")
    return [extra]


def select(brief: AgentBrief) -> dict[str, Any]:
    """Best of N's validator: the attempt the issue's ``Select: try K`` line names when
    it is among those offered, else the score's first."""
    offered = [int(n) for n in brief.facts.get("attempts", "").split(",") if n.strip()]
    asked = marker(brief.primary.body, "Select") or ""
    wanted = int(asked.split()[-1]) if asked.split() and asked.split()[-1].isdigit() else None
    if wanted in offered:
        return {"winner": wanted, "reason": f"the issue asks for try {wanted}"}
    ranking = brief.facts.get("ranking", "")
    first = int(ranking.split(">")[0].split()[-1]) if ranking else offered[0]
    return {"winner": first, "reason": f"try {first} reads as clearly as any and is smallest"}
