"""The plugin in the real Claude Code CLI (``--plugin-dir``), against the fake Anthropic
API: what it loads, a skill running ``ralph``, an MCP tool through the plugin's server
and the worktree gate on a skill's session and not on an ordinary one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from ralph.plugin import plugin_path

from ...fakes.anthropic_api import FakeAnthropicAPI, Request, Script, Step, Text, ToolUse
from ..conftest import GitProject

pytestmark = pytest.mark.slow

#: The name Claude Code gives the plugin's tools (seen in its init frame and tool calls).
TOOL_PREFIX = "mcp__plugin_ralph-hero_ralph-hero__"


def _claude() -> Path:
    sdk = pytest.importorskip("claude_agent_sdk")
    return Path(sdk.__file__).parent / "_bundled" / "claude"


def _ralph(cwd: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RALPH_")}
    subprocess.run(
        [sys.executable, "-m", "ralph", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture
def project(tmp_path) -> Path:
    repo = GitProject(tmp_path / "project")
    _ralph(repo.path, "init")
    _ralph(
        repo.path,
        "issue",
        "new",
        "Add a farewell",
        "--state",
        "Research Needed",
        "--estimate",
        "XS",
    )
    return repo.path


def session(project: Path, prompt: str, script: Script) -> tuple[list[dict[str, Any]], Any]:
    """Run one ``claude -p`` with the plugin; its stream-json frames and the fake API."""
    home = project.parent / "home"
    home.mkdir(exist_ok=True)
    with FakeAnthropicAPI(script) as api:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RALPH_")}
        env.update(api.environment(str(home)), **PATIENT_MCP)
        env.pop("CLAUDECODE", None)
        # The plugin runs `ralph`, as an installed package's console script would be found.
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        done = subprocess.run(
            [
                str(_claude()),
                "-p",
                prompt,
                "--output-format",
                "stream-json",
                "--verbose",
                "--model",
                "claude-sonnet-4-5",
                "--plugin-dir",
                str(plugin_path()),
                "--allowedTools",
                "Bash",
                "Write",
                TOOL_PREFIX.rstrip("_"),
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()], api


def tool_results(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The answers to the script's own tool calls (a call made again after waiting for
    the MCP server counts once: see ``as_a_model_would``)."""
    found = [
        block
        for frame in frames
        if frame.get("type") == "user"
        for block in frame["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    waits = {i + 1 for i, block in enumerate(found) if STILL_CONNECTING in text_of(block)}
    return [b for i, b in enumerate(found) if i not in waits and i + 1 not in waits]


def text_of(result: Any) -> str:
    content = result["content"]
    if isinstance(content, str):
        return content
    return "\n".join(block.get("text", "") for block in content)


#: How long Claude Code lets the plugin's MCP server take to start (its default, 30 s,
#: is not always enough for `ralph mcp` on a loaded 2-core machine running the suite).
PATIENT_MCP = {"MCP_TIMEOUT": "120000"}

#: What Claude Code answers a call to a plugin's MCP tool while its server still starts.
STILL_CONNECTING = "is still connecting. Call WaitForMcpServers"


def as_a_model_would(steps: Sequence[Step]) -> Callable[[Request, int], Step]:
    """``steps`` followed as a model follows Claude Code's answers: a call to an MCP tool
    whose server is still connecting (``ralph mcp`` starts slowly on a loaded machine) is
    made again after ``WaitForMcpServers``, as the answer asks."""

    def model(request: Request, turn: int) -> Step:
        answers = [text_of(block) for block in request.tool_results()]
        if answers and STILL_CONNECTING in answers[-1]:
            return ToolUse("WaitForMcpServers", {})
        waited = sum(STILL_CONNECTING in answer for answer in answers)
        return steps[len(answers) - 2 * waited]

    return model


def test_the_status_skill_runs_ralph_status_and_the_plugins_mcp_tool_answers(project):
    script: list[Step] = [
        ToolUse("Bash", {"command": "ralph status --format markdown", "description": "status"}),
        ToolUse(f"{TOOL_PREFIX}ralph_hero__get_issue", {"number": 1}),
        Text("One issue, in Research Needed."),
    ]
    frames, api = session(project, "/ralph-hero:ralph-status markdown", as_a_model_would(script))
    init = next(f for f in frames if f.get("subtype") == "init")
    # Listed while it starts (status "pending"); the tool call below shows it connected.
    assert {"name": "plugin:ralph-hero:ralph-hero", "source": "plugin"} in [
        {k: s.get(k) for k in ("name", "source")} for s in init["mcp_servers"]
    ]
    skills = {f"ralph-hero:ralph-{name}" for name in ("hero", "team", "research", "impl")}
    assert skills <= set(init["skills"])
    assert {"ralph-hero:ralph-analyst", "ralph-hero:ralph-builder"} <= set(init["agents"])
    # The skill's instructions reached the model with its arguments.
    assert "Show the pipeline dashboard. Arguments: `markdown`" in "\n".join(api.turns[0].texts())
    status, issue = tool_results(frames)
    assert not status.get("is_error")
    assert "# Pipeline Status" in text_of(status)
    assert not issue.get("is_error")
    assert json.loads(text_of(issue))["workflowState"] == "Research Needed"
    assert frames[-1]["result"] == "One issue, in Research Needed."


def test_during_an_implement_skill_a_write_outside_the_worktree_is_refused(project):
    outside = project / "src" / "stray.py"
    script: list[Step] = [
        ToolUse("Bash", {"command": "ralph hook context set implement 1", "description": "gate"}),
        ToolUse("Write", {"file_path": str(outside), "content": "print('hi')\n"}),
        Text("Refused, as it should be."),
    ]
    frames, _ = session(project, "Implement issue 1.", script)
    _, write = tool_results(frames)
    assert write.get("is_error")
    assert "only inside the issue's worktree (worktrees/GH-1/)" in text_of(write)
    assert not outside.exists()
    context = json.loads((project / ".ralph" / "hook-context.json").read_text())
    # Set from the session's Bash call: it gates that session only.
    assert context["session_id"] == frames[0]["session_id"]


def test_in_an_ordinary_session_the_same_write_goes_ahead(project):
    outside = project / "src" / "stray.py"
    script: list[Step] = [
        ToolUse("Write", {"file_path": str(outside), "content": "print('hi')\n"}),
        Text("Written."),
    ]
    frames, _ = session(project, "Write a file.", script)
    (write,) = tool_results(frames)
    assert not write.get("is_error"), text_of(write)
    assert outside.read_text() == "print('hi')\n"
