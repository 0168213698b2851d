"""The scripted code reviewer and the scripted builder answering a review.

The reviewer approves, unless the issue says ``Code review: request-changes`` and no
address round has run yet: then it requests changes with one inline comment on the
first changed file that carries the issue's second ```diff block (the first is the
implementation's). The builder applies every ```diff block the feedback holds (a
review's body, a thread's comments), else the newest it finds in the issues'
comments (a person's hint after a failed check), commits them as one fix, and
answers every thread."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ralph.artifacts import diff_blocks
from ralph.runtimes._model import AgentBrief, Feedback
from ralph.runtimes.scripted._builder import PLACEHOLDER_FOLDER, apply_diff, git_as_agent
from ralph.runtimes.scripted._limits import SIMULATOR_DOCS, beyond_simulator
from ralph.runtimes.scripted._text import marker

__all__ = ["address", "code_review"]

#: How the note that ends an address round begins (``ralph.phases``).
_ROUND_HEADER = "## Review Feedback Addressed"


def _changed(diff: str) -> list[str]:
    return re.findall(r"^\+\+\+ b/(.+)$", diff, re.MULTILINE)


def code_review(brief: AgentBrief) -> dict[str, Any]:
    primary = brief.primary
    diff = next((f.text for f in brief.feedback if f.kind == "diff"), "")
    files = _changed(diff)
    asked = (marker(primary.body, "Code review") or "").lower() == "request-changes"
    addressed = any(c.startswith(_ROUND_HEADER) for c in primary.comments)
    fixes = diff_blocks(primary.body)[1:]
    if asked and not addressed and files:
        comment = "This needs one more change before it merges."
        if fixes:
            comment += f" Apply this:\n\n```diff\n{fixes[0]}```"
        return {
            "verdict": "REQUEST_CHANGES",
            "body": "Simulated review (scripted runtime): one change requested inline.",
            "comments": [{"path": files[0], "line": 1, "body": comment}],
        }
    if files and all(path.startswith(PLACEHOLDER_FOLDER) for path in files):
        return {
            "verdict": "APPROVE",
            "body": "Simulated review (scripted runtime): this is a simulated placeholder "
            f"change ({', '.join(files)}), not a real one: the issue had no ```diff block "
            "to apply, so the simulated agent recorded what it asks in a file. A real "
            f"agent makes the change itself (see {SIMULATOR_DOCS}).",
        }
    return {
        "verdict": "APPROVE",
        "body": f"Simulated review (scripted runtime): the change touches {len(files)} file(s) "
        "and does what the issue asks.",
    }


def _blocks(items: tuple[Feedback, ...]) -> list[str]:
    return [block for item in items for block in diff_blocks(item.text)]


def address(brief: AgentBrief) -> dict[str, Any]:
    workdir = Path(brief.workdir)
    blocks = _blocks(brief.feedback)
    hints = [b for issue in brief.issues for c in reversed(issue.comments) for b in diff_blocks(c)]
    applied: list[str] = []
    for diff in blocks or hints:
        if apply_diff(workdir, diff, new_only=True) is None:
            applied.append(diff)
            if not blocks:
                break  # the newest hint that is not in yet is the fix
    if not applied:
        number = brief.primary.number
        return {
            "escalate": beyond_simulator(
                "The feedback holds no ```diff block that applies",
                "applies the ```diff blocks of a review or of the issue's comments",
                f"add one in a review comment or with `ralph issue comment {number} -`",
            )
        }
    git_as_agent(workdir, "add", "-A")
    if git_as_agent(workdir, "diff", "--cached", "--name-only").split():
        lines = "\n".join(f"- {f.kind} on {f.where}" for f in brief.feedback)
        git_as_agent(workdir, "commit", "-q", "-m", f"fix: address PR review feedback\n\n{lines}")
    threads = [
        {"id": f.id, "reply": "Applied the suggested change.", "fixed": True}
        for f in brief.feedback
        if f.kind == "thread"
    ]
    return {
        "threads": threads,
        "summary": f"Simulated fix (scripted runtime): applied {len(applied)} change(s).",
        "tests": "PASSING",
    }
