"""``ralph run research N --agent claude``: the research phase end to end with the real
Claude Code CLI, a fake model behind the fake Anthropic API writing the document."""

from __future__ import annotations

import os
import re
import sys

import pytest

from ralph.cli import main
from ralph.demo import create_sample_repository

from ...fakes.anthropic_api import Request, Step, Text, ToolUse
from ..conftest import Project as Repo
from ..conftest import git
from .conftest import MODEL

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
- `sample/core.py` - add `farewell`
### Will Read (Dependencies)
- `tests/test_core.py` - the existing tests
"""


def research_model(request: Request, turn: int) -> Step:
    """Reads the document path the brief names, writes the document, returns the result."""
    prompt = "\n".join(request.texts())
    path = re.search(r"- document: `([^`]+)`", prompt)
    number = re.search(r"### #(\d+):", prompt)
    if path is None or number is None:
        return Text("I cannot find the task.")
    if turn == 0:
        document = RESEARCH.format(number=number.group(1))
        return ToolUse("Write", {"file_path": path.group(1), "content": document})
    if turn == 1:
        workdir = re.search(r"Your working directory is `([^`]+)`", prompt)
        assert workdir is not None
        relative = os.path.relpath(path.group(1), workdir.group(1))
        return ToolUse("StructuredOutput", {"document": relative, "summary": "one function"})
    return Text("done")


@pytest.fixture
def ralph(tmp_path, monkeypatch, capsys, fake_api, home):
    repo = Repo(create_sample_repository(tmp_path / "sample"))
    monkeypatch.chdir(repo.path)
    for variable in [v for v in os.environ if v.startswith("RALPH_")]:
        monkeypatch.delenv(variable)
    monkeypatch.setenv("RALPH_TEST_COMMAND", f"{sys.executable} -m unittest -q")
    api = fake_api(research_model)
    for name, value in api.environment(str(home)).items():
        monkeypatch.setenv(name, value)

    def run(*args: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as info:
            main(list(args))
        out, err = capsys.readouterr()
        return info.value.code or 0, out, err

    assert run("init")[0] == 0
    config = repo.path / "ralph.toml"
    config.write_text(config.read_text().replace('model = ""', f'model = "{MODEL}"'))
    run.api = api  # type: ignore[attr-defined]
    run.repo = repo  # type: ignore[attr-defined]
    return run


def test_research_runs_end_to_end_with_claude_code(ralph):
    ralph("issue", "new", "Add a farewell", "--state", "Research Needed", "--estimate", "XS")
    code, out, err = ralph("run", "research", "1", "--agent", "claude")
    assert code == 0, out + err
    assert "research #1 — Claude Code" in out
    assert "Research complete for #1" in out
    assert "result: done" in out
    code, shown, _ = ralph("issue", "show", "1", "--json")
    assert '"workflowState": "Ready for Plan"' in shown
    assert "## Research Document" in shown
    committed = git(ralph.repo.path, "log", "--name-only", "--format=%s", "main", "-1")
    assert "docs(research): GH-1 research findings" in committed
    assert "thoughts/shared/research/2026-" in committed


def test_claude_is_the_default_agent(ralph):
    ralph("issue", "new", "Add a farewell", "--state", "Research Needed", "--estimate", "XS")
    code, out, err = ralph("run", "research", "1")
    assert code == 0, out + err
    assert "Claude Code" in out


def test_without_an_api_key_the_error_says_how_to_configure(ralph, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    ralph("issue", "new", "Add a farewell", "--state", "Research Needed", "--estimate", "XS")
    code, _, err = ralph("run", "research", "1", "--agent", "claude")
    assert code == 2
    assert err.strip() == (
        "ralph: error: the claude agent needs an API key: set ANTHROPIC_API_KEY "
        "(or log in once with `claude login`)"
    )
