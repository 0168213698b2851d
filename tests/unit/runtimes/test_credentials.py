"""Whether an agent can reach its model here: a key in the environment or its CLI's own
login file, and, when neither is there, what a person sets or types."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.runtimes import agent_credentials
from ralph.runtimes._claude_cli import login_command

#: Each agent, a key that is enough, and where its login lives under the home.
LOGINS = {
    "claude": ("ANTHROPIC_API_KEY", ".claude/.credentials.json"),
    "codex": ("OPENAI_API_KEY", ".codex/auth.json"),
    "gemini": ("GEMINI_API_KEY", ".gemini/oauth_creds.json"),
    "opencode": ("OPENROUTER_API_KEY", ".local/share/opencode/auth.json"),
}


@pytest.mark.parametrize("agent", list(LOGINS))
def test_a_key_or_a_login_is_enough_and_neither_is_missing(agent: str, tmp_path: Path):
    key, login = LOGINS[agent]
    nothing = {"HOME": str(tmp_path), "PATH": ""}
    missing = agent_credentials(agent, nothing)
    assert missing.ready is False
    assert missing.fix.startswith("set ")
    assert agent_credentials(agent, {**nothing, key: "k"}).found == key
    (tmp_path / login).parent.mkdir(parents=True)
    (tmp_path / login).write_text("{}")
    logged_in = agent_credentials(agent, nothing)
    assert (logged_in.ready, logged_in.found) == (True, f"logged in ({tmp_path / login})")


def test_an_empty_key_is_no_key(tmp_path: Path):
    assert (
        agent_credentials("claude", {"ANTHROPIC_API_KEY": "", "HOME": str(tmp_path)}).ready is False
    )


def test_a_config_folder_named_by_the_environment_holds_the_login(tmp_path: Path):
    (tmp_path / "claude").mkdir()
    (tmp_path / "claude" / ".credentials.json").write_text("{}")
    (tmp_path / "codex").mkdir()
    (tmp_path / "codex" / "auth.json").write_text("{}")
    (tmp_path / "data" / "opencode").mkdir(parents=True)
    (tmp_path / "data" / "opencode" / "auth.json").write_text("{}")
    environ = {
        "HOME": str(tmp_path / "elsewhere"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "CODEX_HOME": str(tmp_path / "codex"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    assert all(agent_credentials(a, environ).ready for a in ("claude", "codex", "opencode"))


def test_each_missing_login_says_what_to_set_and_what_to_type(tmp_path: Path):
    nothing = {"HOME": str(tmp_path), "PATH": ""}
    fixes = {a: agent_credentials(a, nothing).fix for a in LOGINS}
    assert fixes == {
        "claude": "set ANTHROPIC_API_KEY, or log in with `ralph login`",
        "codex": "set OPENAI_API_KEY or CODEX_API_KEY, or log in with `codex login`",
        "gemini": "set GEMINI_API_KEY or GOOGLE_API_KEY, or run `gemini` once and choose "
        "Login with Google",
        "opencode": "set ANTHROPIC_API_KEY or OPENAI_API_KEY or GEMINI_API_KEY or "
        "OPENROUTER_API_KEY, or log in with `opencode auth login`",
    }


def test_the_scripted_agent_needs_nothing_and_a_command_of_ones_own_is_not_judged():
    assert agent_credentials("scripted", {}).ready is True
    assert agent_credentials("command", {}).ready is None


def test_the_login_command_is_claudes_own_when_claude_is_on_the_path(tmp_path: Path):
    claude = tmp_path / "claude"
    claude.write_text("#!/bin/sh\n")
    claude.chmod(0o755)
    assert login_command(environ={"PATH": str(tmp_path)}) == "claude auth login"
    # Otherwise the bundled CLI, through Ralph: its path is nothing anyone types.
    assert login_command(environ={"PATH": ""}) == "ralph login"
    assert login_command("/opt/claude") == "/opt/claude auth login"


def test_a_cli_on_a_model_server_of_this_machine_needs_no_key(tmp_path: Path):
    # Ollama, vLLM, LM Studio: a keyless provider on a loopback address.
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "config.toml").write_text(
        'model = "gpt-oss:20b"\nmodel_provider = "ollama"\n'
    )
    (tmp_path / ".config" / "opencode").mkdir(parents=True)
    (tmp_path / ".config" / "opencode" / "opencode.json").write_text(
        '{"provider": {"ollama": {"npm": "@ai-sdk/openai-compatible",'
        ' "options": {"baseURL": "http://localhost:11434/v1"}}},'
        ' "model": "ollama/qwen3-coder:30b"}'
    )
    nothing = {"HOME": str(tmp_path), "PATH": ""}
    for agent in ("codex", "opencode"):
        local = agent_credentials(agent, nothing)
        assert (local.ready, local.found) == (
            True,
            "a model server on this machine (http://localhost:11434/v1): needs no key",
        )
