"""``ralph mcp`` as Claude Code starts it: a stdio subprocess in the project's folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import anyio
from mcp import Client, StdioServerParameters

from ..conftest import Project as Repo


def ralph(cwd, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "ralph", *args], cwd=cwd, capture_output=True, text=True,
        env=_environment(), check=True,
    )  # fmt: skip
    return done.stdout


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("RALPH_")}


def test_ralph_mcp_serves_the_tools_over_stdio(tmp_path):
    repo = Repo(tmp_path / "project")
    ralph(repo.path, "init")
    ralph(repo.path, "issue", "new", "Add a farewell", "--state", "Research Needed",
          "--estimate", "XS")  # fmt: skip
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "ralph", "mcp"], cwd=str(repo.path),
        env=_environment(),
    )  # fmt: skip

    async def session() -> tuple[list[str], dict[str, object], bool]:
        async with Client(server) as client:
            tools = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("ralph_hero__detect_pipeline_position", {"number": 1})
            return tools, json.loads(result.content[0].text), bool(result.is_error)

    tools, position, failed = anyio.run(session)
    assert "ralph_hero__detect_pipeline_position" in tools
    assert "ralph_hero__task_claim" in tools
    assert not failed
    assert position["phase"] == "RESEARCH"
    assert position["issues"][0]["title"] == "Add a farewell"
