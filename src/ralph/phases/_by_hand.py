"""Work a person does in a phase's place: their text stands in for the agent's, so the
phase's own runner checks, commits, comments and moves it exactly as it would an agent's.
Plus the person's working copies of documents (``.ralph/drafts/``, outside the tracked
tree: committing a document to the base branch never meets an untracked copy of it)."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.artifacts import ArtifactKind, Links, discover
from ralph.phases._context import PhaseContext
from ralph.phases._phase import Workspace
from ralph.phases._registry import get_phase
from ralph.project import Project
from ralph.runtimes import AgentBrief, AgentResult, AgentRuntime, AgentStatus
from ralph.tracker import Issue

__all__ = [
    "DRAFTS",
    "PLACEHOLDER",
    "Draft",
    "HandWritten",
    "draft_of",
    "drafts_folder",
    "hand_problems",
    "placeholders",
]

#: Where a person's working copies live, each under its repository path.
DRAFTS = ".ralph/drafts"
#: What a skeleton marks every part a person must still write with.
PLACEHOLDER = "TODO(ralph)"
_PLACEHOLDER = re.compile(re.escape(PLACEHOLDER))


class HandWritten(AgentRuntime):
    """The person as the phase's agent: writes the texts they gave to the phase's
    outputs (by output name) and returns their result."""

    name = "person"
    description = "a person (by hand)"

    def __init__(self, texts: Mapping[str, str], result: Mapping[str, Any]) -> None:
        self.texts = dict(texts)
        self.result = dict(result)

    def run(self, brief: AgentBrief) -> AgentResult:
        for output, text in self.texts.items():
            target = brief.workdir / brief.outputs[output]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        paths = {name: brief.outputs[name] for name in self.texts}
        return AgentResult(
            status=AgentStatus.OK, result={**paths, **self.result}, agent=self.description
        )


@dataclass(frozen=True)
class Draft:
    #: The working copy, absolute.
    path: Path
    #: The document's path in the repository it stands for.
    document: str
    #: False when an existing working copy was kept.
    created: bool
    #: What the person does with it next.
    next_step: str
    #: What was done on the way (the issue moved, locked), as lines for a person.
    said: tuple[str, ...] = ()


def placeholders(text: str) -> int:
    """How many of a skeleton's placeholders ``text`` still holds."""
    return len(_PLACEHOLDER.findall(text))


def drafts_folder(project: Project) -> Path:
    return project.git.path / DRAFTS


def draft_of(project: Project, kind: ArtifactKind, number: int) -> Path | None:
    """The working copy of issue ``number``'s document of ``kind``, found as the
    document itself would be."""
    root = drafts_folder(project)
    if not root.is_dir():
        return None
    files = [p.relative_to(root).as_posix() for p in root.rglob("*.md")]
    found = discover(kind, number, (), files, Links())
    return root / found.path if found is not None else None


def hand_problems(
    ctx: PhaseContext, phase: str, members: Sequence[Issue], path: str, text: str
) -> list[str]:
    """What ``phase`` would reject in ``text`` as its document at ``path``: the phase's
    own validation, plus the skeleton's placeholders still to write."""
    left = placeholders(text)
    if left:
        return [f"it still has {left} {PLACEHOLDER} placeholder(s) to write"]
    with tempfile.TemporaryDirectory(prefix=f"ralph-{phase}-") as folder:
        file = Path(folder) / path
        file.parent.mkdir(parents=True)
        file.write_text(text)
        space = Workspace(Path(folder), outputs={"document": path})
        result = AgentResult(status=AgentStatus.OK, result={"document": path})
        return get_phase(phase).validate(ctx, members, space, result)
