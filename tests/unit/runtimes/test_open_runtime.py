"""``--agent NAME``: each runtime opens, or says what to install or set."""

from __future__ import annotations

import sys

import pytest

from ralph.config import AgentSettings
from ralph.errors import ConfigError
from ralph.runtimes import open_runtime
from ralph.runtimes.claude import ClaudeRuntime
from ralph.runtimes.command import CommandRuntime
from ralph.runtimes.scripted import ScriptedRuntime


def test_each_runtime_opens_by_name():
    assert isinstance(open_runtime("scripted"), ScriptedRuntime)
    claude = open_runtime(
        "claude", AgentSettings(model="opus"), environ={"ANTHROPIC_API_KEY": "sk"}
    )
    assert isinstance(claude, ClaudeRuntime)
    assert claude.model == "opus"
    command = open_runtime("command", AgentSettings(command="codex exec -", format="codex"))
    assert isinstance(command, CommandRuntime)
    assert command.output == "codex"


def test_claude_without_the_sdk_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "claude_agent_sdk", None)
    with pytest.raises(ConfigError, match="make install in a clone of Ralph"):
        open_runtime("claude", environ={"ANTHROPIC_API_KEY": "sk"})


def test_claude_without_a_key_or_login_says_how_to_configure(tmp_path):
    with pytest.raises(ConfigError, match="set ANTHROPIC_API_KEY"):
        open_runtime("claude", environ={"CLAUDE_CONFIG_DIR": str(tmp_path)})
    (tmp_path / ".credentials.json").write_text("{}")
    assert open_runtime("claude", environ={"CLAUDE_CONFIG_DIR": str(tmp_path)})


def test_the_command_runtime_needs_a_template():
    with pytest.raises(ConfigError, match=r"set \[agent\] command"):
        open_runtime("command")


def test_an_unknown_agent_lists_the_known_ones():
    with pytest.raises(
        ConfigError,
        match="available in this version: claude, codex, gemini, opencode, command, scripted",
    ):
        open_runtime("gpt")
