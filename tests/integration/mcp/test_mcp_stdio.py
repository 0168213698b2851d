"""``ralph mcp`` as Claude Code starts it: a stdio subprocess in the project's folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from ...fakes.anthropic_api import FakeAnthropicAPI, Text, ToolUse
from ..conftest import GitProject, ralph_environment


@pytest.fixture
def repo(tmp_path, monkeypatch, ralph_cli) -> GitProject:
    """A project with one XS issue in Research Needed, made in-process; the working
    directory is its folder."""
    repo = GitProject(tmp_path / "project")
    monkeypatch.chdir(repo.path)
    assert ralph_cli("init")[0] == 0
    made = ralph_cli("issue", "new", "Add a farewell", "--state", "Research Needed", "-e", "XS")
    assert made[0] == 0, made[2]
    return repo


def test_ralph_mcp_serves_the_tools_over_stdio_and_names_its_version(repo):
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "ralph", "mcp"],
        cwd=str(repo.path),
        env=ralph_environment(),
    )

    async def session() -> tuple[list[str], dict[str, Any], bool]:
        async with Client(server) as client:
            assert client.server_info is not None
            assert client.server_info.name == "ralph-hero"
            assert client.server_info.version == version("ralph-delivery")
            tools = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("ralph_hero__detect_pipeline_position", {"number": 1})
            content = result.content[0]
            assert isinstance(content, TextContent)
            return tools, json.loads(content.text), bool(result.is_error)

    tools, position, failed = anyio.run(session)
    assert "ralph_hero__detect_pipeline_position" in tools
    assert "ralph_hero__task_claim" in tools
    assert not failed
    assert position["phase"] == "RESEARCH"
    assert position["issues"][0]["title"] == "Add a farewell"


def test_claude_code_uses_ralph_mcp_from_the_readme_snippet(repo, tmp_path):
    """The real Claude Code CLI, configured with the .mcp.json docs/claude-code.md shows,
    calls a tool of ``ralph mcp`` for a (fake) model."""
    sdk = pytest.importorskip("claude_agent_sdk")
    cli = Path(sdk.__file__).parent / "_bundled" / "claude"
    (repo.path / ".mcp.json").write_text(
        '{"mcpServers": {"ralph-hero": {"command": "ralph", "args": ["mcp"]}}}'
    )
    home = tmp_path / "home"
    home.mkdir()
    tool = "mcp__ralph-hero__ralph_hero__detect_pipeline_position"
    with FakeAnthropicAPI([ToolUse(tool, {"number": 1}), Text("It is in research.")]) as api:
        env = ralph_environment(api.environment(str(home)))
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        done = subprocess.run(
            [
                str(cli),
                "-p",
                "Where is issue 1?",
                "--output-format",
                "json",
                "--model",
                "claude-sonnet-4-5",
                "--mcp-config",
                ".mcp.json",
                "--strict-mcp-config",
                "--allowedTools",
                "mcp__ralph-hero",
            ],
            cwd=repo.path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        turns = api.turns
    assert done.returncode == 0, done.stderr
    assert tool in turns[0].tool_names
    answer = turns[1].tool_results()[0]
    assert not answer.get("is_error"), answer
    assert '"phase": "RESEARCH"' in str(answer["content"])
    assert json.loads(done.stdout)["result"] == "It is in research."
