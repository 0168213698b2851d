"""``ralph run research N --agent claude``: the research phase end to end with the real
Claude Code CLI, a fake model behind the fake Anthropic API writing the document."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time

import pytest

from ralph.demo import create_sample_repository
from ralph.demo._sample import FAREWELL

from ...fakes.anthropic_api import ApiError, Request, Step, Text, ToolUse
from ..conftest import GitProject, git
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
    number = re.search(r"### Issue #(\d+)", prompt)
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
def ralph(ralph_cli, tmp_path, monkeypatch, fake_api, home):
    repo = GitProject(create_sample_repository(tmp_path / "sample"))
    monkeypatch.chdir(repo.path)
    monkeypatch.delenv("RALPH_AGENT")  # Claude Code, the default agent, does the work
    monkeypatch.setenv("RALPH_TEST_COMMAND", f"{sys.executable} -m unittest -q")
    api = fake_api(research_model)
    for name, value in api.environment(str(home)).items():
        monkeypatch.setenv(name, value)

    run = ralph_cli
    assert run("init")[0] == 0
    config = repo.path / "ralph.toml"
    config.write_text(config.read_text().replace('model = ""', f'model = "{MODEL}"'))
    run.api = api
    run.repo = repo
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
    (line,) = err.strip().splitlines()
    # The CLI's own command (`claude login` is not one), or Ralph's for the bundled CLI.
    login = "claude auth login" if shutil.which("claude") else "ralph login"
    assert line == (
        "ralph: error: the claude agent needs an API key or a login: set ANTHROPIC_API_KEY, "
        f"or log in with `{login}`; or try Ralph offline with --agent scripted"
    )


def refuse_the_key(ralph) -> None:
    ralph.api.rescript(
        lambda request, turn: ApiError(401, "invalid x-api-key", "authentication_error")
    )


def test_a_refused_key_fails_the_phase_at_once_and_leaves_the_issue_where_it_was(ralph):
    ralph("issue", "new", "Add a farewell", "--state", "Research Needed", "--estimate", "XS")
    refuse_the_key(ralph)
    started = time.monotonic()
    code, out, err = ralph("run", "research", "1", "--agent", "claude")
    assert time.monotonic() - started < 30  # not minutes of retries per attempt
    assert code == 2, out + err
    (line,) = err.strip().splitlines()
    assert line.startswith(
        "ralph: error: the agent (Claude Code) cannot work: Claude Code's credentials were "
        "refused (401: authentication_failed); set ANTHROPIC_API_KEY to a valid key, or log "
        "in with `"
    )
    login = "claude auth login" if shutil.which("claude") else "ralph login"
    assert line.endswith(f"`{login}`, then run again")
    assert "site-packages" not in line  # a command a person can type
    shown = json.loads(ralph("issue", "show", "1", "--json")[1])
    assert shown["workflowState"] == "Research Needed"
    assert not [c for c in shown["comments"] if c["body"].startswith("Escalation")]
    assert "Attempt" not in out
    # Fixed: the same command goes on.
    ralph.api.rescript(research_model)
    code, out, err = ralph("run", "research", "1", "--agent", "claude")
    assert code == 0, out + err


def test_a_refused_key_stops_hero_without_escalating_and_a_rerun_resumes(ralph):
    body = f"Add `farewell` to the core module.\n\n{FAREWELL}\n"
    ralph(
        "issue",
        "new",
        "Add a farewell",
        "--body",
        body,
        "--state",
        "Research Needed",
        "--estimate",
        "XS",
    )
    refuse_the_key(ralph)
    code, out, err = ralph("hero", "1", "--agent", "claude")
    assert code == 2, out + err
    assert (
        "Stopped: the agent (Claude Code) cannot work: Claude Code's credentials were refused"
        in out
    )
    assert "`ralph hero 1` resumes" in out
    assert "Escalat" not in out
    shown = json.loads(ralph("issue", "show", "1", "--json")[1])
    assert shown["workflowState"] == "Research Needed"
    code, out, err = ralph("tasks", "list", "--json")
    research = next(t for t in json.loads(out) if t["kind"] == "research")
    assert research["status"] == "pending"
    code, out, err = ralph("hero", "1", "--agent", "scripted")
    assert code == 0, out + err
    assert "Resumed run 1." in out
    shown = json.loads(ralph("issue", "show", "1", "--json")[1])
    assert shown["workflowState"] == "Done"
