"""The real Claude Code CLI (bundled with claude-agent-sdk) against the local fake of
the Anthropic API: an isolated home, and briefs to hand it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ralph.runtimes import AgentBrief, IssueContext, Limits

from ...fakes.anthropic_api import FakeAnthropicAPI, Script
from ..phases.conftest import sample  # noqa: F401  (the sample project, for tracker tools)

pytest.importorskip("claude_agent_sdk")

MODEL = "claude-sonnet-4-5"
SCHEMA = {
    "type": "object",
    "required": ["document", "summary"],
    "properties": {"document": {"type": "string"}, "summary": {"type": "string"}},
}


@pytest.fixture
def fake_api(tmp_path: Path) -> Iterator[Callable[[Script], FakeAnthropicAPI]]:
    """Start a fake API with a script; stopped at the end of the test."""
    started: list[FakeAnthropicAPI] = []

    def start(script: Script) -> FakeAnthropicAPI:
        api = FakeAnthropicAPI(script).__enter__()
        started.append(api)
        return api

    yield start
    for api in started:
        api.__exit__(None, None, None)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    (path / "notes.md").write_text("existing notes\n")
    return path


@pytest.fixture
def brief(workdir: Path) -> Callable[..., AgentBrief]:
    def make(**changes: object) -> AgentBrief:
        values: dict[str, object] = {
            "phase": "research",
            "role": "analyst",
            "issues": (IssueContext(number=7, title="Add a farewell", body="Say goodbye."),),
            "instructions": "Research the issue and write the document.",
            "workdir": workdir,
            "tools": ("Read", "Write", "Glob", "Grep"),
            "limits": Limits(max_turns=10, timeout_seconds=60, stall_seconds=30),
            "result_schema": SCHEMA,
            "outputs": {"document": "doc.md"},
        }
        values.update(changes)
        return AgentBrief(**values)  # type: ignore[arg-type]

    return make
