"""Reading and editing the parts of documents that phases act on: the research
document's file lists, a plan's steps and their checkboxes, and ```diff blocks.

The plan grammar is one canonical form (the original had two): each issue is a
``## Phase N: GH-123 Title`` section whose success criteria are checkbox lists under
``#### Automated Verification`` and ``#### Manual Verification``. Such a section is a
*step* of the plan here (the document's word "Phase" would collide with the pipeline's
phases); a step is done when every Automated Verification box is ticked. Pure: text in,
text out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "AUTOMATED",
    "MANUAL",
    "UNPLANNED",
    "Checkbox",
    "PlanStep",
    "diff_blocks",
    "files_under",
    "plan_steps",
    "step_files",
    "tick_step",
]

AUTOMATED = "#### Automated Verification"
#: How the implementation says which changed files no phase of its plan names (the run
#: report and the pull request show it).
UNPLANNED = "Changed outside the plan"
MANUAL = "#### Manual Verification"
_PHASE = re.compile(r"^## Phase (\d+):?\s*(.*)$", re.MULTILINE)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*:?\s*$")
_BOX = re.compile(r"^(\s*[-*] )\[([ xX])\] (.*)$")
_DIFF = re.compile(r"^```diff[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
_PATH = re.compile(r"`([^`]+)`")
_ISSUE = re.compile(r"GH-0*(\d+)")
_FILE = re.compile(r"^\s*\*\*File\*\*:?\s*`([^`]+)`", re.MULTILINE)
_DIFF_PATH = re.compile(r"^(?:\+\+\+|---) (?:[ab]/)?(\S+)", re.MULTILINE)


@dataclass(frozen=True)
class Checkbox:
    checked: bool
    text: str


@dataclass(frozen=True)
class PlanStep:
    """One ``## Phase N`` section of a plan."""

    number: int
    title: str
    #: The issue the phase implements (``GH-123`` in its heading), if named.
    issue: int | None
    #: The section's text after its heading line.
    body: str
    automated: tuple[Checkbox, ...]
    manual: tuple[Checkbox, ...]

    @property
    def done(self) -> bool:
        return bool(self.automated) and all(box.checked for box in self.automated)


def _section_lines(body: str, heading: str) -> list[str]:
    """The lines under ``heading`` (any level) up to the next heading of the same or a
    higher level."""
    lines = body.splitlines()
    wanted = heading.lstrip("#").strip().rstrip(":").casefold()
    for index, line in enumerate(lines):
        match = _HEADING.match(line)
        if match and match.group(2).rstrip(":").casefold() == wanted:
            level = len(match.group(1))
            found = []
            for following in lines[index + 1 :]:
                other = _HEADING.match(following)
                if other and len(other.group(1)) <= level:
                    break
                found.append(following)
            return found
    return []


def _boxes(body: str, heading: str) -> tuple[Checkbox, ...]:
    found = []
    for line in _section_lines(body, heading):
        match = _BOX.match(line)
        if match:
            found.append(Checkbox(match.group(2) != " ", match.group(3).strip()))
    return tuple(found)


def plan_steps(text: str) -> list[PlanStep]:
    matches = list(_PHASE.finditer(text))
    steps = []
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        body = text[match.end() : end]
        # A phase ends at the next level-2 heading that is not a phase either.
        following = re.search(r"^## (?!#)", body, re.MULTILINE)
        if following:
            body = body[: following.start()]
        title = match.group(2).strip()
        issue = _ISSUE.search(title)
        steps.append(
            PlanStep(
                number=int(match.group(1)),
                title=title,
                issue=int(issue.group(1)) if issue else None,
                body=body,
                automated=_boxes(body, AUTOMATED),
                manual=_boxes(body, MANUAL),
            )
        )
    return steps


def tick_step(text: str, number: int) -> str:
    """``text`` with every Automated Verification box of step ``number`` ticked."""
    lines = text.splitlines(keepends=True)
    in_phase = in_automated = False
    for index, line in enumerate(lines):
        phase = _PHASE.match(line)
        heading = _HEADING.match(line.rstrip("\n"))
        if phase:
            in_phase, in_automated = int(phase.group(1)) == number, False
        elif heading and len(heading.group(1)) <= 2:
            in_phase = in_automated = False
        elif heading and in_phase:
            in_automated = line.strip().rstrip(":") == AUTOMATED
        elif in_automated:
            lines[index] = _BOX.sub(r"\1[x] \3", line.rstrip("\n")) + (
                "\n" if line.endswith("\n") else ""
            )
    return "".join(lines)


def diff_blocks(text: str) -> list[str]:
    """The contents of every ```diff fenced block, in order."""
    return [match.group(1) for match in _DIFF.finditer(text)]


def files_under(text: str, heading: str) -> list[str]:
    """Backticked paths listed under ``heading`` (``### Will Modify``), in order."""
    found: dict[str, None] = {}
    for line in _section_lines(text, heading):
        if line.lstrip().startswith(("-", "*")):
            match = _PATH.search(line)
            if match:
                found.setdefault(match.group(1).strip(), None)
    return list(found)


def step_files(step: PlanStep) -> list[str]:
    """The files a plan step says it changes: its ``**File**: `path``` lines and the
    paths its ```diff blocks touch, in order."""
    found = dict.fromkeys(match.group(1).strip() for match in _FILE.finditer(step.body))
    for block in diff_blocks(step.body):
        for match in _DIFF_PATH.finditer(block):
            if match.group(1) != "/dev/null":
                found.setdefault(match.group(1), None)
    return list(found)
