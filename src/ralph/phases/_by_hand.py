"""Work a person does in a phase's place: their text stands in for the agent's, so the
phase's own runner checks, commits, comments and moves it exactly as it would an agent's.
Plus the person's working copies of documents (``.ralph/drafts/``, outside the tracked
tree: committing a document to the base branch never meets an untracked copy of it)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ralph.runtimes import AgentBrief, AgentResult, AgentRuntime, AgentStatus

__all__ = ["DRAFTS", "PLACEHOLDER", "HandWritten", "placeholders"]

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


def placeholders(text: str) -> int:
    """How many of a skeleton's placeholders ``text`` still holds."""
    return len(_PLACEHOLDER.findall(text))
