"""A fake model that does each phase's work on the sample project (``ralph.demo``: a
``greet`` package) through whichever CLI runs it: it reads the task from the prompt the
CLI sends, and calls that CLI's tools in that CLI's way (``Dialect``).

The model keeps no state: where it is in a task is how many of its tool calls the
conversation has answered, so one fake serves phase after phase of a whole run."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from ralph.demo._sample import CORE

from ._clis import Dialect, Step

__all__ = ["FAREWELL_CODE", "model"]

FAREWELL_CODE = CORE + '\n\ndef farewell(name):\n    return f"Goodbye, {name}!"\n'

RESEARCH = """\
---
date: 2026-11-22
github_issue: {number}
github_url: ""
status: complete
type: research
---

# Research: add a farewell

The core module greets; nothing says goodbye yet.

## Files Affected
### Will Modify
- `greet/core.py` - add `farewell`
### Will Read (Dependencies)
- `tests/test_greet.py` - the existing tests
"""

PLAN = """\
---
date: 2026-11-22
status: draft
github_issues: [{number}]
primary_issue: {number}
---

# Add a farewell - Implementation Plan

## Overview

One phase: `farewell` beside `greet`.

## Phase 1: GH-{number} Add a farewell

### Changes Required

#### 1. Add farewell
**File**: `greet/core.py`
**Changes**: add `farewell(name)`.

### Success Criteria

#### Automated Verification
- [ ] The tests pass

#### Manual Verification
- [ ] `greet.core.farewell("Ada")` says goodbye
"""

CRITIQUE = """\
---
date: 2026-11-22
github_issue: {number}
plan_document: ""
status: approved
type: critique
---

# Plan critique

## Verdict

APPROVED
"""


def _find(pattern: str, prompt: str) -> str | None:
    found = re.search(pattern, prompt)
    return found.group(1) if found else None


#: The triage of an XS issue whose change names its file: the fast track, proposed.
TRIAGE = {
    "action": "RESEARCH",
    "reason": "Valid and specific: one function to add.",
    "estimate": "XS",
    "fast_track": True,
    "fast_track_reason": "XS, and the issue's diff names its one file.",
    "files": ["greet/core.py"],
}


def _steps(cli: Dialect, prompt: str, *, runs_tests: bool = False) -> list[Step] | None:
    """The whole task, tool call by tool call; None when the prompt names none.
    ``runs_tests``: the implementation runs the project's tests in its shell before it
    commits, as the prompt asks and a real agent does."""
    workdir = _find(r"Your working directory is `([^`]+)`", prompt)
    number = _find(r"### Issue #(\d+)", prompt)
    if workdir is None or number is None:
        return None
    if re.search(r"^# Triage issue", prompt, re.MULTILINE):
        return cli.finish(TRIAGE)
    document = _find(r"- document: `([^`]+)`", prompt)
    critique = _find(r"- critique: `([^`]+)`", prompt)
    plan = _find(r"The plan file is `([^`]+)`", prompt)
    if critique is not None:
        relative = os.path.relpath(critique, workdir)
        return [
            cli.write(critique, CRITIQUE.format(number=number)),
            *cli.finish({"verdict": "APPROVED", "issues": [], "critique": relative}),
        ]
    if document is not None and "/research/" in document:
        relative = os.path.relpath(document, workdir)
        return [
            cli.write(document, RESEARCH.format(number=number)),
            *cli.finish({"document": relative, "summary": "one function to add"}),
        ]
    if document is not None:
        relative = os.path.relpath(document, workdir)
        return [
            cli.write(document, PLAN.format(number=number)),
            *cli.finish({"document": relative, "summary": "one phase", "phase_count": 1}),
        ]
    if plan is not None:
        # The change with the CLI's own edit tool; the ticks and the commit in its shell.
        core = os.path.join(workdir, "greet", "core.py")
        commit = (
            f"sed -i 's/- \\[ \\]/- [x]/' {plan} && git add greet/core.py {plan} && "
            f"git commit -q -m 'feat(core): farewell' -m 'Phase 1 of 1: #{number} - farewell'"
        )
        tests = _find(r"Run the project's tests \(`([^`]+)`\)", prompt)
        if runs_tests and tests is not None:
            commit = f"{tests} && {commit}"
        reads = [cli.read(core)] if cli.read is not None else []
        return [
            *reads,
            cli.edit(core, CORE.rstrip("\n"), FAREWELL_CODE.rstrip("\n")),
            cli.shell(commit),
            *cli.finish({"phases_done": 1, "phases_total": 1, "tests": "PASSING"}),
        ]
    return None


def model(cli: Dialect, *, runs_tests: bool = False) -> Callable[[Any, int], Step]:
    """The script of ``cli``'s fake API: a function of each request (``runs_tests``:
    see ``_steps``)."""

    def answer(request: Any, turn: int) -> Step:
        steps = _steps(cli, "\n".join(request.texts()), runs_tests=runs_tests)
        if steps is None:
            return cli.finish({"escalate": "I cannot find the task in the prompt."})[0]
        return steps[min(request.answered, len(steps) - 1)]

    return answer
