"""The agent runtime a project's settings name: the tracker tools server is made only
for an agent that takes one in-process (Claude), since making it opens the MCP layer."""

from __future__ import annotations

import pytest

from ralph.config import Config
from ralph.project import open_agent_runtime

pytestmark = pytest.mark.timeout(30)


class ToolsMade(Exception):
    pass


def _tools() -> object:
    raise ToolsMade


def test_an_agent_without_in_process_tools_gets_no_tools_server(tmp_path):
    runtime = open_agent_runtime(Config(root=tmp_path), "scripted", tools=_tools)
    assert runtime.name == "scripted"


def test_claude_named_for_every_phase_gets_the_tools_server(tmp_path):
    with pytest.raises(ToolsMade):
        open_agent_runtime(Config(root=tmp_path), "claude", tools=_tools)
