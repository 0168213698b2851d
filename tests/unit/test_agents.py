"""The catalogue of agent CLIs (``ralph._agents``) is the one list of them: the names
ralph.toml and ``--agent`` take, the formats the command runtime reads and the state the
sandbox opens are all read from it."""

from __future__ import annotations

import pytest

from ralph._agents import (
    AGENT_CLIS,
    AGENT_NAMES,
    OUTPUT_FORMATS,
    RUNTIMES,
    AgentCli,
    find_agent_cli,
    is_command_preset,
)


def test_agent_takes_every_cli_then_the_runtimes_that_are_none():
    assert [cli.name for cli in AGENT_CLIS] == ["claude", "codex", "gemini", "opencode"]
    assert AGENT_NAMES == ("claude", "codex", "gemini", "opencode", "command", "scripted")
    assert set(RUNTIMES) <= set(AGENT_NAMES)


def test_the_command_runtime_reads_plain_text_and_every_clis_format():
    assert OUTPUT_FORMATS == ("plain", "claude", "codex", "gemini", "opencode")


@pytest.mark.parametrize(
    ("name", "preset"),
    [("claude", False), ("codex", True), ("gemini", True), ("opencode", True)],
)
def test_claude_code_runs_in_its_sdk_runtime_and_every_other_cli_from_a_preset(name, preset):
    assert is_command_preset(name) is preset
    cli = find_agent_cli(name)
    assert cli is not None
    assert cli.runtime == ("command" if preset else "claude")


@pytest.mark.parametrize("name", ["command", "scripted", "aider", ""])
def test_a_runtime_or_an_unknown_name_is_no_agent_cli(name):
    assert find_agent_cli(name) is None
    assert not is_command_preset(name)


def test_each_cli_names_the_state_its_runs_get_a_copy_of():
    state = {cli.name: (*cli.home_folders, *cli.home_files) for cli in AGENT_CLIS}
    assert state == {
        "claude": (".claude", ".claude.json"),
        "codex": (".codex",),
        "gemini": (".gemini",),
        "opencode": (
            ".config/opencode",
            ".local/share/opencode",
            ".local/state/opencode",
            ".cache/opencode",
        ),
    }
    # opencode's cache folder is made before its run, and lies in the shared cache.
    opencode = find_agent_cli("opencode")
    assert opencode is not None
    assert ".cache/opencode" in opencode.home_folders


def test_a_cli_must_name_a_runtime_that_exists():
    with pytest.raises(ValueError, match="names no runtime"):
        AgentCli(
            name="aider", title="Aider", output="plain", runtime="aider", login=AGENT_CLIS[1].login
        )


def test_every_cli_says_which_keys_to_suggest_and_where_its_login_is():
    for cli in AGENT_CLIS:
        assert 1 <= cli.login.suggested <= len(cli.login.keys)
        assert cli.login.file
        assert cli.login.folder
